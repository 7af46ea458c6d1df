"""The adversarial campaign, kept as tests: raw-socket cases against the server and the proxy,
and a socket fuzzer that compares their verdicts on the same bytes."""
