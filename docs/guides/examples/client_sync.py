"""Send a batch with the blocking client and read the answers in request order."""

from mixbatch.client import BatchClient


def main(url: str) -> list[int | None]:
    with BatchClient(f"{url}/batch") as client:
        batch = (
            client.batch()
            .get("/books/1")
            .get("/books/999")  # a failing part is just that part's 404
            .post("/books", json={"title": "Batching HTTP", "author": "A. Student"})
        )
        result = client.send(batch)
        print(result.status, result.summary)  # 200 Summary(ok=2, failed=1, ...)
        for response in result:
            print(response.index, response.status, response.headers.get("Location"))
        return [response.status for response in result]
