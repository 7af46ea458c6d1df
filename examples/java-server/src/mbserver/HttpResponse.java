package mbserver;

import java.io.IOException;

/** One HTTP response: a status, ordered header fields and either a body or a streamed body. */
public final class HttpResponse {
    public int status;
    public final Fields headers = new Fields();
    public byte[] body = new byte[0];
    /** When set, the body is produced by this callback (chunked for HTTP/1.1, buffered for HTTP/1.0). */
    public Streamer streamer;
    /** Trailer field names announced for a streamed body. */
    public String trailer;
    public boolean close;
    /** Runs once the response is written or abandoned (releases the in-flight budget). */
    public Runnable onComplete;

    public HttpResponse(int status) { this.status = status; }

    public static HttpResponse text(int status, String contentType, String body) {
        HttpResponse r = new HttpResponse(status);
        r.headers.add("Content-Type", contentType);
        r.body = Ascii.utf8(body);
        return r;
    }

    public interface Streamer { void stream(BodyOut out) throws IOException; }

    public interface BodyOut {
        void write(byte[] b) throws IOException;
        void flush() throws IOException;
        void trailer(String name, String value);
    }

    public static String reason(int code) {
        switch (code) {
            case 100: return "Continue";
            case 200: return "OK"; case 201: return "Created"; case 202: return "Accepted";
            case 203: return "Non-Authoritative Information"; case 204: return "No Content";
            case 205: return "Reset Content"; case 206: return "Partial Content"; case 207: return "Multi-Status";
            case 300: return "Multiple Choices"; case 301: return "Moved Permanently"; case 302: return "Found";
            case 303: return "See Other"; case 304: return "Not Modified"; case 307: return "Temporary Redirect";
            case 308: return "Permanent Redirect";
            case 400: return "Bad Request"; case 401: return "Unauthorized"; case 402: return "Payment Required";
            case 403: return "Forbidden"; case 404: return "Not Found"; case 405: return "Method Not Allowed";
            case 406: return "Not Acceptable"; case 407: return "Proxy Authentication Required";
            case 408: return "Request Timeout"; case 409: return "Conflict"; case 410: return "Gone";
            case 411: return "Length Required"; case 412: return "Precondition Failed"; case 413: return "Content Too Large";
            case 414: return "URI Too Long"; case 415: return "Unsupported Media Type"; case 416: return "Range Not Satisfiable";
            case 417: return "Expectation Failed"; case 421: return "Misdirected Request"; case 422: return "Unprocessable Content";
            case 424: return "Failed Dependency"; case 426: return "Upgrade Required"; case 428: return "Precondition Required";
            case 429: return "Too Many Requests"; case 431: return "Request Header Fields Too Large";
            case 500: return "Internal Server Error"; case 501: return "Not Implemented"; case 502: return "Bad Gateway";
            case 503: return "Service Unavailable"; case 504: return "Gateway Timeout"; case 505: return "HTTP Version Not Supported";
            default: return "";
        }
    }
}
