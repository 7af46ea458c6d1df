package mbserver;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** mbserver: a mixbatch batch server. Usage: java -cp build mbserver.Main [--port N] [--host H] [--batch-timeout-ms MS] */
public final class Main {
    static final int MAX_CONNECTIONS = 512;

    public static void main(String[] args) throws IOException {
        int port = 18291;
        String host = "127.0.0.1";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port": port = Integer.parseInt(args[++i]); break;
                case "--host": host = args[++i]; break;
                case "--batch-timeout-ms": Limits.BATCH_TIMEOUT_MS = Long.parseLong(args[++i]); break;
                case "-h": case "--help":
                    System.out.println("usage: java -cp build mbserver.Main [--port N] [--host H] [--batch-timeout-ms MS]");
                    return;
                default:
                    System.err.println("unknown argument: " + args[i]);
                    System.exit(2);
            }
        }
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getByName(host), port), 128);
        int actual = server.getLocalPort();
        String shownHost = host.contains(":") ? "[" + host + "]" : host;
        String authority = shownHost + ":" + actual;
        System.out.println("mbserver listening on http://" + authority);
        System.out.flush();

        Router router = new Router(authority);
        ExecutorService pool = new ThreadPoolExecutor(0, MAX_CONNECTIONS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> { Thread t = new Thread(r, "mb-conn"); t.setDaemon(true); return t; });

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // SIGTERM: refuse new batches, let running ones end with an abort part, then stop.
            Budget.SHUTTING_DOWN.set(true);
            try { server.close(); } catch (IOException ignored) { }
            long end = System.currentTimeMillis() + 3000;
            while (Budget.inFlight() > 0 && System.currentTimeMillis() < end) {
                try { Thread.sleep(20); } catch (InterruptedException e) { break; }
            }
        }, "mb-shutdown"));

        while (!server.isClosed()) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (server.isClosed()) break;
                continue;
            }
            try {
                pool.execute(new HttpConnection(s, router));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                try { s.close(); } catch (IOException ignored) { }
            }
        }
    }
}
