"""Stream: handle part 0 while the server is still working on part 1."""

from mixbatch.client import BatchClient


def main(url: str) -> list[int]:
    seen = []
    with BatchClient(f"{url}/batch") as client:
        batch = client.batch().get("/books/1").get("/delay/300")
        stream = client.stream(batch)
        for response in stream:  # each part as soon as it has arrived whole
            print("part", response.index, response.status)
            seen.append(response.index)
        print(stream.result.summary)  # the whole result once the stream is exhausted
    return seen
