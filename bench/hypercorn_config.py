"""hypercorn settings for the HTTP/2 comparison (``hypercorn -c python:bench.hypercorn_config``).

hypercorn allows 100 concurrent streams per connection by default; the comparison drives up to
1,000 at once (``h2load -m 1000``), and nginx is configured with the same cap, so that neither
server is held to fewer streams than the client offers. hypercorn also closes a connection
after 1,000 requests by default, which cuts off every 2,000-item run on its one connection;
the limit is raised past the largest count the comparison sends.
"""

h2_max_concurrent_streams = 1000
keep_alive_max_requests = 100_000
