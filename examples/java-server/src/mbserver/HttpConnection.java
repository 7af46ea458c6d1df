package mbserver;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The HTTP/1.1 codec of one connection: reads requests (Content-Length or chunked content),
 * answers them one at a time in the order received (so pipelined requests are answered in order,
 * MB-PIPE-1), keeps the connection alive, and speaks HTTP/1.0 to HTTP/1.0 clients.
 */
public final class HttpConnection implements Runnable {
    private final Socket socket;
    private final Router router;
    private InputStream in;
    private OutputStream out;

    public HttpConnection(Socket socket, Router router) { this.socket = socket; this.router = router; }

    /** A fault of the HTTP framing itself; the connection closes after the answer. */
    static final class FramingError extends Exception {
        final int status; final String detail;
        FramingError(int status, String detail) { super(detail, null, false, false); this.status = status; this.detail = detail; }
    }

    @Override public void run() {
        try {
            socket.setSoTimeout(Limits.READ_TIMEOUT_MS);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream(), 65536);
            out = new BufferedOutputStream(socket.getOutputStream(), 65536);
            while (serveOne()) { /* next request on this connection */ }
        } catch (IOException e) {
            // the peer went away or timed out
        } finally {
            try { socket.close(); } catch (IOException ignored) { }
        }
    }

    private boolean serveOne() throws IOException {
        HttpRequest req = new HttpRequest();
        String line;
        try {
            // RFC 9112 2.2: ignore empty lines before the request-line
            int skipped = 0;
            do {
                line = readLine(Limits.MAX_REQUEST_LINE, true);
                if (line == null) return false;
            } while (line.isEmpty() && ++skipped < 8);
        } catch (FramingError e) {
            writeFramingError(e, "HTTP/1.1");
            return false;
        } catch (SocketTimeoutException e) {
            return false;
        }
        req.startNanos = System.nanoTime();
        try {
            parseRequestLine(req, line);
            readHeaderSection(req);
        } catch (FramingError e) {
            writeFramingError(e, req.version == null ? "HTTP/1.1" : req.version);
            return false;
        }

        boolean http10 = "HTTP/1.0".equals(req.version);
        boolean clientClose = hasToken(req.headers.combined("Connection"), "close")
                || (http10 && !hasToken(req.headers.combined("Connection"), "keep-alive"));

        // Framing of the content (RFC 9112 6).
        long contentLength = 0;
        boolean chunked = false;
        boolean closeAfter = false;
        try {
            String te = req.headers.combined("Transfer-Encoding");
            if (te != null) {
                if (http10) throw new FramingError(400, "Transfer-Encoding in an HTTP/1.0 request");
                String[] codings = te.split(",", -1);
                for (String c : codings) if (Ascii.trimOws(c).isEmpty()) throw new FramingError(400, "empty element in Transfer-Encoding");
                if (codings.length != 1 || !Ascii.equalsIgnoreCase(Ascii.trimOws(codings[0]), "chunked")) {
                    String last = Ascii.trimOws(codings[codings.length - 1]);
                    if (!Ascii.equalsIgnoreCase(last, "chunked")) throw new FramingError(400, "chunked is not the final transfer coding");
                    throw new FramingError(501, "unsupported transfer coding in '" + te + "'");
                }
                chunked = true;
                if (req.headers.has("Content-Length")) closeAfter = true; // RFC 9112 6.3 item 3
            } else if (req.headers.has("Content-Length")) {
                String v = null;
                for (String el : req.headers.combined("Content-Length").split(",", -1)) {
                    String t = Ascii.trimOws(el);
                    if (!Ascii.isDigits(t)) throw new FramingError(400, "invalid Content-Length");
                    if (v != null && !v.equals(stripZeros(t))) throw new FramingError(400, "conflicting Content-Length values");
                    v = stripZeros(t);
                }
                if (v.length() > 18) throw new FramingError(400, "Content-Length too large to read");
                contentLength = Long.parseLong(v);
            }
        } catch (FramingError e) {
            writeFramingError(e, req.version);
            return false;
        }

        boolean isBatch = router.isBatchEndpoint(req);
        boolean batchPost = isBatch && "POST".equals(req.method);
        long maxBody = batchPost ? Limits.MAX_BATCH_BYTES : (isBatch ? Limits.MAX_DISCARD_BYTES : Limits.MAX_RESOURCE_BODY);

        if (batchPost) req.batchPermit = Budget.tryAcquire();
        HttpResponse resp;
        try {
            if (!chunked && contentLength > maxBody) {
                resp = tooLarge(batchPost, maxBody, true);
            } else {
                String expect = req.headers.combined("Expect");
                if (expect != null && !http10 && Ascii.equalsIgnoreCase(Ascii.trimOws(expect), "100-continue")
                        && (chunked || contentLength > 0)) {
                    out.write(Ascii.latin1("HTTP/1.1 100 Continue\r\n\r\n"));
                    out.flush();
                }
                byte[] body;
                try {
                    body = chunked ? readChunked(maxBody) : readFixed(contentLength);
                } catch (FramingError e) {
                    if (e.status == 413) {
                        Budget.release(req);
                        resp = tooLarge(batchPost, maxBody, true);
                        writeResponse(req, resp, true);
                        lingeringClose();
                        return false;
                    }
                    throw e;
                }
                req.body = body;
                req.hasBody = chunked ? body.length > 0 : contentLength > 0;
                resp = router.handle(req);
            }
        } catch (FramingError e) {
            Budget.release(req);
            writeFramingError(e, req.version);
            return false;
        } catch (IOException e) {
            // The client left, or fell silent, before its content ended: its slot is free again.
            Budget.release(req);
            throw e;
        } catch (RuntimeException e) {
            e.printStackTrace();
            Problem p = new Problem(500, null, "internal-error", "Internal server error", String.valueOf(e));
            resp = p.toResponse();
        }
        if (resp.onComplete == null) resp.onComplete = () -> Budget.release(req);
        else { Runnable r = resp.onComplete; resp.onComplete = () -> { r.run(); Budget.release(req); }; }
        boolean close = clientClose || closeAfter || resp.close;
        try {
            writeResponse(req, resp, close);
        } finally {
            resp.onComplete.run();
        }
        if (resp.close) { lingeringClose(); return false; }
        return !close;
    }

    private static String stripZeros(String d) {
        int i = 0;
        while (i < d.length() - 1 && d.charAt(i) == '0') i++;
        return d.substring(i);
    }

    private HttpResponse tooLarge(boolean batch, long max, boolean close) {
        Problem p = new Problem(413, batch ? "MB-STATUS-3" : null, "batch-too-large",
                batch ? "Batch content too large" : "Content too large",
                "the content exceeds " + max + " octets");
        if (batch) p.limit("max_batch_bytes", max);
        p.close = close;
        return p.toResponse();
    }

    private void parseRequestLine(HttpRequest req, String line) throws FramingError {
        int a = line.indexOf(' ');
        int b = a < 0 ? -1 : line.indexOf(' ', a + 1);
        if (a <= 0 || b < 0 || line.indexOf(' ', b + 1) >= 0) throw new FramingError(400, "malformed request-line");
        String method = line.substring(0, a), target = line.substring(a + 1, b), version = line.substring(b + 1);
        if (!version.matches("HTTP/[0-9]\\.[0-9]")) throw new FramingError(400, "malformed HTTP-version");
        if (!version.startsWith("HTTP/1.")) throw new FramingError(505, "HTTP version not supported");
        req.version = "HTTP/1.0".equals(version) ? "HTTP/1.0" : "HTTP/1.1";
        if (!Ascii.isToken(method)) throw new FramingError(400, "method is not a token");
        if (target.isEmpty()) throw new FramingError(400, "empty request-target");
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c >= 0x7f) throw new FramingError(400, "invalid octet in request-target");
        }
        req.method = method;
        req.target = target;
    }

    private void readHeaderSection(HttpRequest req) throws IOException, FramingError {
        int total = 0, count = 0;
        while (true) {
            String line = readLine(Limits.MAX_TOP_HEADER_BYTES, false);
            if (line == null) throw new IOException("eof in header section");
            if (line.isEmpty()) break;
            total += line.length() + 2;
            if (++count > Limits.MAX_TOP_FIELDS || total > Limits.MAX_TOP_HEADER_BYTES)
                throw new FramingError(431, "request header section too large");
            if (Ascii.isOws(line.charAt(0))) throw new FramingError(400, "obs-fold in the header section");
            int colon = line.indexOf(':');
            if (colon <= 0) throw new FramingError(400, "header line without a field name and colon");
            String name = line.substring(0, colon);
            if (!Ascii.isToken(name)) throw new FramingError(400, "invalid field name");
            String value = Ascii.trimOws(line.substring(colon + 1));
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if ((c < 0x20 && c != '\t') || c == 0x7f) throw new FramingError(400, "control octet in a field value");
            }
            req.headers.add(name, value);
        }
    }

    /** Reads a line ending in LF (CRLF, or a bare LF as RFC 9112 2.2 allows); a bare CR is an error. */
    private String readLine(int max, boolean eofOk) throws IOException, FramingError {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(128);
        int c;
        boolean any = false;
        while (true) {
            c = in.read();
            if (c < 0) {
                if (!any && eofOk) return null;
                throw new IOException("eof in line");
            }
            any = true;
            if (c == '\n') break;
            if (c == '\r') {
                int d = in.read();
                if (d == '\n') break;
                throw new FramingError(400, "bare CR in the message head");
            }
            buf.write(c);
            if (buf.size() > max) throw new FramingError(max == Limits.MAX_REQUEST_LINE ? 414 : 431, "line too long");
        }
        return buf.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    private byte[] readFixed(long n) throws IOException {
        byte[] b = new byte[(int) n];
        int off = 0;
        while (off < n) {
            int r = in.read(b, off, (int) n - off);
            if (r < 0) throw new IOException("eof in content");
            off += r;
        }
        return b;
    }

    private byte[] readChunked(long max) throws IOException, FramingError {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String line = readLine(4096, false);
            int semi = line.indexOf(';');
            String size = Ascii.trimOws(semi < 0 ? line : line.substring(0, semi));
            if (size.isEmpty() || size.length() > 15) throw new FramingError(400, "invalid chunk-size");
            long n = 0;
            for (int i = 0; i < size.length(); i++) {
                int d = Character.digit(size.charAt(i), 16);
                if (d < 0 || size.charAt(i) > 'f') throw new FramingError(400, "invalid chunk-size");
                n = n * 16 + d;
            }
            if (n == 0) break;
            if (body.size() + n > max) throw new FramingError(413, "content too large");
            byte[] chunk = readFixed(n);
            body.write(chunk);
            int cr = in.read(), lf = in.read();
            if (cr != '\r' || lf != '\n') throw new FramingError(400, "chunk data not followed by CRLF");
        }
        // trailer section
        int total = 0;
        while (true) {
            String t = readLine(Limits.MAX_TOP_HEADER_BYTES, false);
            if (t.isEmpty()) break;
            total += t.length();
            if (total > Limits.MAX_TOP_HEADER_BYTES) throw new FramingError(431, "trailer section too large");
        }
        return body.toByteArray();
    }

    private static boolean hasToken(String list, String token) {
        if (list == null) return false;
        for (String el : list.split(",")) if (Ascii.equalsIgnoreCase(Ascii.trimOws(el), token)) return true;
        return false;
    }

    private void writeFramingError(FramingError e, String version) throws IOException {
        Problem p = new Problem(e.status, null, "bad-http-message", HttpResponse.reason(e.status).isEmpty() ? "Bad request" : HttpResponse.reason(e.status), e.detail);
        HttpResponse r = p.toResponse();
        HttpRequest dummy = new HttpRequest();
        dummy.method = "GET";
        dummy.version = version;
        writeResponse(dummy, r, true);
        lingeringClose();
    }

    private void lingeringClose() {
        // RFC 9112 9.6: close the sending side first and read on for a bounded while so the
        // client can read the answer before the connection is reset.
        try {
            out.flush();
            socket.shutdownOutput();
            socket.setSoTimeout(Limits.LINGER_MS);
            long end = System.currentTimeMillis() + Limits.LINGER_MS;
            byte[] sink = new byte[65536];
            while (System.currentTimeMillis() < end && in.read(sink) >= 0) { /* discard */ }
        } catch (IOException ignored) {
        } finally {
            try { socket.close(); } catch (IOException ignored) { }
        }
    }

    static final DateTimeFormatter IMF = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);

    public static String httpDate(long epochMillis) {
        return IMF.format(ZonedDateTime.ofInstant(java.time.Instant.ofEpochMilli(epochMillis), ZoneOffset.UTC));
    }

    private void writeResponse(HttpRequest req, HttpResponse resp, boolean close) throws IOException {
        boolean http10 = "HTTP/1.0".equals(req.version);
        boolean head = "HEAD".equals(req.method);
        boolean noBody = head || resp.status == 204 || resp.status == 304 || resp.status < 200;
        byte[] body = resp.body;
        boolean chunked = false;
        if (resp.streamer != null && !noBody) {
            if (http10) {
                // HTTP/1.0 has no chunked coding: produce the whole body, then send it with Content-Length.
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                resp.streamer.stream(new HttpResponse.BodyOut() {
                    public void write(byte[] b) { buf.write(b, 0, b.length); }
                    public void flush() { }
                    public void trailer(String n, String v) { }
                });
                body = buf.toByteArray();
            } else chunked = true;
        }
        StringBuilder h = new StringBuilder(256);
        h.append("HTTP/1.1 ").append(resp.status).append(' ').append(HttpResponse.reason(resp.status)).append("\r\n");
        h.append("Date: ").append(httpDate(System.currentTimeMillis())).append("\r\n");
        for (Fields.Field f : resp.headers.list) h.append(f.name).append(": ").append(f.value).append("\r\n");
        if (chunked) {
            h.append("Transfer-Encoding: chunked\r\n");
            if (resp.trailer != null) h.append("Trailer: ").append(resp.trailer).append("\r\n");
        } else if (resp.status != 204 && resp.status != 304 && resp.status >= 200) {
            h.append("Content-Length: ").append(body.length).append("\r\n");
        }
        if (close) h.append("Connection: close\r\n");
        else if (http10) h.append("Connection: keep-alive\r\n");
        h.append("\r\n");
        out.write(Ascii.latin1(h.toString()));
        if (chunked) {
            final StringBuilder trailers = new StringBuilder();
            resp.streamer.stream(new HttpResponse.BodyOut() {
                public void write(byte[] b) throws IOException {
                    if (b.length == 0) return;
                    out.write(Ascii.latin1(Integer.toHexString(b.length) + "\r\n"));
                    out.write(b);
                    out.write(Ascii.latin1("\r\n"));
                }
                public void flush() throws IOException { out.flush(); }
                public void trailer(String n, String v) { trailers.append(n).append(": ").append(v).append("\r\n"); }
            });
            out.write(Ascii.latin1("0\r\n" + trailers + "\r\n"));
        } else if (!noBody) {
            out.write(body);
        }
        out.flush();
    }
}
