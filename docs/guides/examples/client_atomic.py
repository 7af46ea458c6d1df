"""Create a book and change it in one atomic batch: the later parts name it with batch.ref(0)."""

from mixbatch.client import Batch, BatchClient


def main(url: str) -> list[str | None]:
    outcomes = []
    with BatchClient(f"{url}/batch") as client:
        batch = Batch().post("/books", json={"title": "Dune", "author": "Frank Herbert"})
        batch.patch(
            batch.ref(0),  # "$(0)": the Location of part 0's answer
            headers={
                "Content-Type": "application/merge-patch+json",
                "If-Match": batch.ref(0, "ETag"),  # "$(0:ETag)": its ETag field
            },
            body='{"year": 1965}',
        )
        batch.get(batch.ref(0))
        result = client.send(batch, atomic=True)  # Batch-Mode: atomic, references
        print(result.outcome, [r.status for r in result])  # committed [201, 200, 200]
        outcomes.append(result.outcome)

        failing = Batch().post("/books", json={"title": "Emma", "author": "Jane Austen"})
        failing.get("/books/999999")  # 404: nothing of this batch remains
        failing.post("/books", json={"title": "Persuasion", "author": "Jane Austen"})
        result = client.send(failing, atomic=True)
        for response in result:
            # 0 201 True False / 1 404 False False / 2 None False True
            print(response.index, response.status, response.rolled_back, response.skipped)
        outcomes.append(result.outcome)  # "rolled-back"
    return outcomes
