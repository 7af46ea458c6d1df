"""The asyncio client: the same batch, the same result, with await and async for."""

import asyncio

from mixbatch.client import AsyncBatchClient, Batch, RetryPolicy, TruncatedResponse


async def fetch(url: str) -> list[int | None]:
    batch = Batch().get("/books/1").get("/books/2")
    async with AsyncBatchClient(f"{url}/batch", retry=RetryPolicy(max_retries=1)) as client:
        try:
            result = await client.send(batch, stop_on_error=True)
        except TruncatedResponse as error:
            # The response stopped early: keep what arrived, the rest has an unknown outcome.
            print("arrived:", [r.index for r in error.responses], "unknown:", error.missing)
            raise
        return [response.status for response in result]


def main(url: str) -> list[int | None]:
    return asyncio.run(fetch(url))
