"""mixbatch benchmarks: batching measured honestly and reproducibly, against the alternatives.

``python -m bench [--quick] [--scenario A,B,...]`` runs the scenarios, each bounded in count and
time, and writes ``bench/results/results.json``, ``summary.md`` and PNG plots. Latency comes from
an in-repo delay relay (``bench.relay``) and every figure is a ratio between methods measured in
the same run, repeated, reported as median with its min-max spread.

Scenarios: A thesis ch. 6 (serial, pipelined, batch); B HTTP/2 multiplexing; C uvicorn
pipelined; D codec against other multipart parsers; E scale (1 GiB, up to 100,000 parts);
F the batching proxy. ``bench.targets`` holds the pass/fail targets.
"""
