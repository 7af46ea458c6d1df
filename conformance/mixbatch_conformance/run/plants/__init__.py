"""Planted violations, as data: requirement -> plant -> the checks that must catch it.

Theory of operation: every server requirement of spec/requirements.json (MUST, MUST NOT,
SHOULD, SHOULD NOT) has at least one plant, a `run.mutations.Mutation` whose `breaks` starts
with the requirement ID and names the way it breaks it ("MB-WIRE-4 over-long"), and whose
catchers are check ids; at least one catcher cites that requirement. Where one requirement
can break in distinct ways (a limit off by one, a wrong count, a wrong representation), each
way is its own plant. Bugs in time and order (streaming, pipelining, the budget of batches in
flight) are planted through the relay's behaviour (plants.behaviour), so every server
requirement has a plant; `UNPLANTED` lists only the requirements that bind a client, a proxy
or a generic intermediary, and every MAY, each with its own reason.

The self-test (`run.selftest`) plants each one in the relay in front of the reference server
and runs only its catchers; `PLANTS` is what it walks.
"""

from __future__ import annotations

from mixbatch_conformance.core.requirements import RequirementIndex, load_index
from mixbatch_conformance.run.mutations import MUTATIONS, Mutation
from mixbatch_conformance.run.plants import (
    abort_stalls,
    absent_conditionals,
    absolute_form,
    advertised_and_counted,
    aggregate_dates,
    aggregate_recency,
    answer_sizes,
    answers_without_content,
    batch_client_fields,
    batch_response_fields,
    batch_wide,
    behaviour,
    boundaries_and_empty_lines,
    boundary_neighbours,
    boundary_pools,
    budget_kinds,
    budget_leftovers,
    budget_phases,
    budget_scope,
    busy_connections,
    carried_content,
    chunked_connections,
    client_leaving,
    coded_limits,
    coding_stacks,
    codings,
    collection_conditionals,
    collection_preconditions,
    collection_representations,
    conditional_evaluations,
    connection_readers,
    connection_requests,
    connections,
    content_extent,
    continue_policy,
    created_validators,
    date_readings,
    declared_refusals,
    delimiter_collisions,
    discovery_requests,
    document_fields,
    early_refusal_connections,
    early_runs,
    echo_octets,
    element_and_preamble_readings,
    endpoint_resource,
    entry_fields,
    escaped_values,
    exact_values,
    expect_connections,
    failed_writes,
    fault_pair_documents,
    fault_placement,
    field_forms,
    field_kinds,
    field_line_octets,
    field_scope,
    field_value_controls,
    forms,
    frame_readings,
    framing,
    framing_spellings,
    get_content_and_ranges,
    hosts_and_entries,
    http10_forms,
    if_range_matches,
    json_form,
    lengths,
    limits,
    list_and_tag_readings,
    lookalike_bodies,
    lookalike_readings,
    member_octets,
    mime_readings,
    mode_paths,
    mode_subrequests,
    mode_writers,
    modes,
    no_transform_variants,
    obs_text,
    octet_units,
    order_and_isolation,
    origin_and_scope_readings,
    origin_ports,
    outcome_shapes,
    ows_and_head_sizes,
    padded_length_connections,
    parameter_readings,
    part_content_fields,
    part_grammar,
    part_length_numerals,
    part_security,
    parts,
    plain_reference_syntax,
    policy_value_readings,
    precondition_order,
    problem_schema,
    problems,
    processing,
    reference_edges,
    reference_substitution,
    refusal_connections,
    refusal_documents,
    refusal_edges,
    refusal_list_neighbours,
    refusal_members,
    refusal_readings,
    refused_preconditions,
    registered_codings,
    request_spellings,
    request_variants,
    resolution,
    resource_edges,
    resources,
    responses,
    retrievals,
    rollback_scope,
    safe_groups,
    sandbox_creation_names,
    sandbox_inputs,
    sandbox_member_ids,
    sandbox_names,
    sandbox_sequences,
    security,
    sender_grammar,
    shared_buffers,
    singleton_lists,
    standalone_writers,
    status_by_parts,
    stopping,
    stored_controls,
    subrequest_readings,
    summary_counts,
    summary_trailer,
    tag_list_readings,
    tag_strengths,
    targets,
    targets_and_hosts,
    text_windows,
    trailer_fields,
    trim_and_rule_readings,
    unusable_references,
    valid_inputs,
    versions_statuses_weights,
    wire,
    write_kinds,
    xml_form,
)

__all__ = [
    "PLANTABLE_KEYWORDS",
    "PLANTS",
    "UNPLANTED",
    "plantable_requirements",
    "planted_coverage",
    "planted_requirements",
    "requirement_of",
    "unplanted_requirements",
]

#: The keywords a planted violation can break (a MAY cannot be violated).
PLANTABLE_KEYWORDS = frozenset({"MUST", "MUST NOT", "SHOULD", "SHOULD NOT"})

#: Every planted violation: the hand-written originals first, then the tables by area.
PLANTS: tuple[Mutation, ...] = (
    MUTATIONS
    + wire.PLANTS
    + framing.PLANTS
    + boundaries_and_empty_lines.PLANTS
    + lengths.PLANTS
    + part_length_numerals.PLANTS
    + safe_groups.PLANTS
    + abort_stalls.PLANTS
    + stored_controls.PLANTS
    + declared_refusals.PLANTS
    + boundary_pools.PLANTS
    + octet_units.PLANTS
    + part_grammar.PLANTS
    + problems.PLANTS
    + refusal_documents.PLANTS
    + parts.PLANTS
    + targets.PLANTS
    + targets_and_hosts.PLANTS
    + responses.PLANTS
    + retrievals.PLANTS
    + forms.PLANTS
    + json_form.PLANTS
    + xml_form.PLANTS
    + escaped_values.PLANTS
    + processing.PLANTS
    + limits.PLANTS
    + batch_response_fields.PLANTS
    + batch_wide.PLANTS
    + security.PLANTS
    + part_security.PLANTS
    + shared_buffers.PLANTS
    + resources.PLANTS
    + resource_edges.PLANTS
    + summary_trailer.PLANTS
    + summary_counts.PLANTS
    + busy_connections.PLANTS
    + coding_stacks.PLANTS
    + codings.PLANTS
    + field_forms.PLANTS
    + framing_spellings.PLANTS
    + modes.PLANTS
    + behaviour.PLANTS
    + budget_phases.PLANTS
    + connections.PLANTS
    + connection_readers.PLANTS
    + connection_requests.PLANTS
    + stopping.PLANTS
    + aggregate_dates.PLANTS
    + aggregate_recency.PLANTS
    + continue_policy.PLANTS
    + field_kinds.PLANTS
    + field_value_controls.PLANTS
    + field_line_octets.PLANTS
    + resolution.PLANTS
    + sandbox_creation_names.PLANTS
    + sandbox_inputs.PLANTS
    + sandbox_member_ids.PLANTS
    + sandbox_names.PLANTS
    + sandbox_sequences.PLANTS
    + absent_conditionals.PLANTS
    + if_range_matches.PLANTS
    + no_transform_variants.PLANTS
    + problem_schema.PLANTS
    + list_and_tag_readings.PLANTS
    + policy_value_readings.PLANTS
    + write_kinds.PLANTS
    + answers_without_content.PLANTS
    + field_scope.PLANTS
    + conditional_evaluations.PLANTS
    + date_readings.PLANTS
    + valid_inputs.PLANTS
    + collection_conditionals.PLANTS
    + collection_preconditions.PLANTS
    + collection_representations.PLANTS
    + refusal_readings.PLANTS
    + refusal_members.PLANTS
    + reference_substitution.PLANTS
    + reference_edges.PLANTS
    + unusable_references.PLANTS
    + plain_reference_syntax.PLANTS
    + hosts_and_entries.PLANTS
    + precondition_order.PLANTS
    + advertised_and_counted.PLANTS
    + order_and_isolation.PLANTS
    + rollback_scope.PLANTS
    + standalone_writers.PLANTS
    + budget_leftovers.PLANTS
    + fault_placement.PLANTS
    + mode_writers.PLANTS
    + mode_paths.PLANTS
    + mode_subrequests.PLANTS
    + endpoint_resource.PLANTS
    + outcome_shapes.PLANTS
    + parameter_readings.PLANTS
    + lookalike_readings.PLANTS
    + lookalike_bodies.PLANTS
    + origin_ports.PLANTS
    + document_fields.PLANTS
    + refusal_connections.PLANTS
    + early_refusal_connections.PLANTS
    + expect_connections.PLANTS
    + frame_readings.PLANTS
    + chunked_connections.PLANTS
    + padded_length_connections.PLANTS
    + exact_values.PLANTS
    + content_extent.PLANTS
    + coded_limits.PLANTS
    + origin_and_scope_readings.PLANTS
    + request_spellings.PLANTS
    + versions_statuses_weights.PLANTS
    + absolute_form.PLANTS
    + request_variants.PLANTS
    + discovery_requests.PLANTS
    + element_and_preamble_readings.PLANTS
    + entry_fields.PLANTS
    + refused_preconditions.PLANTS
    + budget_scope.PLANTS
    + budget_kinds.PLANTS
    + echo_octets.PLANTS
    + mime_readings.PLANTS
    + singleton_lists.PLANTS
    + http10_forms.PLANTS
    + tag_list_readings.PLANTS
    + tag_strengths.PLANTS
    + refusal_list_neighbours.PLANTS
    + status_by_parts.PLANTS
    + obs_text.PLANTS
    + trim_and_rule_readings.PLANTS
    + batch_client_fields.PLANTS
    + trailer_fields.PLANTS
    + get_content_and_ranges.PLANTS
    + refusal_edges.PLANTS
    + boundary_neighbours.PLANTS
    + answer_sizes.PLANTS
    + created_validators.PLANTS
    + member_octets.PLANTS
    + text_windows.PLANTS
    + delimiter_collisions.PLANTS
    + delimiter_collisions.RETRIEVAL_PLANTS
    + fault_pair_documents.PLANTS
    + early_runs.PLANTS
    + sender_grammar.PLANTS
    + client_leaving.PLANTS
    + part_content_fields.PLANTS
    + registered_codings.PLANTS
    + carried_content.PLANTS
    + ows_and_head_sizes.PLANTS
    + subrequest_readings.PLANTS
    + failed_writes.PLANTS
)

#: A client requirement: the plants are variants of a server, which a client check never meets.
_CLIENT = (
    "binds a client; the plants are variants of the reference server, which sends no batch, "
    "so none breaks the "
)
#: A proxy requirement: the reference server is not a batching proxy.
_PROXY = (
    "binds a batching proxy; the plants are variants of the reference server, which is no "
    "proxy, so the proxy-* checks are N/A against every one"
)
#: A MAY: a server that does not do it breaks nothing.
_MAY = "is a MAY, so no server behaviour violates it; "

#: Requirements no plant breaks, each with the reason (the coverage matrix shows it).
UNPLANTED: dict[str, str] = {
    "MB-WIRE-1": _CLIENT + "client's Content-Type",
    "MB-WIRE-14": _CLIENT + "client's handling of a cut-short response",
    "MB-PART-1": _CLIENT + "client's Http-Method fields",
    "MB-PART-3": _CLIENT + "client's Content-Id fields",
    "MB-PART-9": _CLIENT + "client's forbidden part fields",
    "MB-RESP-6": _CLIENT + "client's correlation by position",
    "MB-METHOD-1": _CLIENT + "client's choice of POST",
    "MB-LIMIT-3": _CLIENT + "client's respect for published limits",
    "MB-INTER-2": _CLIENT + "client's removal of a content coding",
    "MB-PIPE-2": _CLIENT + "client's pipelining after a POST",
    "MB-PIPE-3": _MAY + "it allows a client to pipeline retrievals, and binds no server",
    "MB-RESP-8": _CLIENT + "client's unknown Batch-Outcome",
    "MB-STATUS-10": _CLIENT + "client's use of Batch-Summary",
    "MB-MULTI-8": _CLIENT + "client's correlation by part index",
    "MB-MULTI-11": _CLIENT + "client's decoding of body members",
    "MB-STATUS-8": _MAY + "a server chooses whether to send the trailer; what one that is sent "
    "must say is MB-STATUS-15, planted in plants.summary_trailer",
    "MB-PROC-3": _MAY + "running safe parts concurrently or not changes no answer",
    "MB-MULTI-9": _MAY + "offering the XML and JSON forms is a profile claim, not a behaviour",
    "MB-SUB-7": _MAY + "a server may or may not authenticate the batch request itself",
    "MB-INTER-1": (
        "binds a generic intermediary; its faults are planted in a hop, not in the server: "
        "the intermediaries scenarios drop_part, duplicate_part and split_delimiter"
    ),
    "MB-INTER-3": _MAY + "it allows an intermediary to re-chunk or buffer a batch",
    "MB-PROXY-1": _PROXY,
    "MB-PROXY-2": _PROXY,
    "MB-PROXY-3": _PROXY,
    "MB-PROXY-4": _PROXY,
}


def requirement_of(plant: Mutation) -> str:
    """The requirement a plant breaks: the first word of its `breaks`."""
    return plant.breaks.split()[0]


def planted_requirements() -> set[str]:
    return {requirement_of(p) for p in PLANTS}


def plantable_requirements(index: RequirementIndex | None = None) -> list[str]:
    """The server requirements a plant could break, in index order."""
    idx = index or load_index()
    return [r.id for r in idx.for_role("server") if r.keyword in PLANTABLE_KEYWORDS]


def unplanted_requirements(index: RequirementIndex | None = None) -> list[str]:
    """Requirements of the index with no plant and no reason in UNPLANTED."""
    planted = planted_requirements()
    idx = index or load_index()
    return [r.id for r in idx.requirements if r.id not in planted and r.id not in UNPLANTED]


def planted_coverage(index: RequirementIndex | None = None) -> dict[str, list[str] | str | None]:
    """Requirement -> its plants' names, the reason it has none, or None (a gap)."""
    idx = index or load_index()
    by_req: dict[str, list[str]] = {}
    for p in PLANTS:
        by_req.setdefault(requirement_of(p), []).append(p.name)
    return {r.id: by_req.get(r.id) or UNPLANTED.get(r.id) for r in idx.requirements}
