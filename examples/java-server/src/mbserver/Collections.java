package mbserver;

/** Collection resources for GET collection retrieval (spec 4.2); filled in by the collection-get profile. */
public final class Collections {
    public HttpResponse handle(HttpRequest req, String path) throws Problem { return null; }
}
