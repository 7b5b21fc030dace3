"""Write the generated schemas: python -m aftersales.testing.schemas."""

from aftersales.testing.schemas import write

for path in write():
    print(path)
