"""The capabilities document answered to OPTIONS on the batch endpoint (MB-LIMIT-2)."""

from . import limits as L
from .represent import JSON_TYPE, MULTIPART, XML_TYPE

MEDIA_TYPE = "application/vnd.mixbatch.capabilities+json"

# Profiles this server implements, in the order of spec 2.3's table where claimed.
PROFILES = ["core", "pipelining", "limits", "error-policy", "json", "conditional",
            "collection-get", "xml"]
REPRESENTATIONS = [MULTIPART, JSON_TYPE, XML_TYPE]
MODES = set()          # Batch-Mode values implemented: none (no atomic, no references)


def document(endpoint):
    return {
        "spec_version": L.SPEC_VERSION,
        "endpoint": endpoint,
        "limits": L.published(),
        "profiles": PROFILES,
        "representations": REPRESENTATIONS,
        "preferences": ["batch-on-error=continue", "batch-on-error=stop"],
    }
