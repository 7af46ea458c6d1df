"""mixbatch benchmarks: batching measured honestly and reproducibly, against the alternatives.

``python -m bench [--quick] [--scenario NAME,...]`` runs the scenarios, each bounded in count and
time, and writes ``bench/results/results.json``, ``summary.md`` and PNG plots. Latency comes from
an in-repo delay relay (``bench.relay``) and every figure is a ratio between methods measured in
the same run, repeated, reported as median with its min-max spread.

Scenarios, each a module named for what it measures (the letters A-F of earlier releases still
select them, in this order): ``methods_vs_floor`` (thesis ch. 6: serial, pipelined, batch,
against a floor no method can beat); ``http2_vs_batch`` (h2load against hypercorn and nginx,
against one batch); ``uvicorn_pipelining``; ``parsers`` (the codec against other multipart
parsers); ``scale`` (1 GiB, up to 100,000 parts); ``batching_proxy`` (the thesis' 3G link, with
a bandwidth cap). ``bench.targets`` holds the pass/fail targets; ``bench.external`` the C
programs the HTTP/2 comparison needs.
"""
