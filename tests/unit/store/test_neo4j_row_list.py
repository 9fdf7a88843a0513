"""RowList: the write path's rows, packed like a list, with a repr that does not walk them."""

from __future__ import annotations

import io

from neo4j._codec.packstream.v1 import Packer  # the driver's own packer, as it sends rows

from apexmem_neo.store.neo4j.store import RowList
from benchmarks.graph import write_ab


def packed(value: object) -> bytes:
    stream = io.BytesIO()
    Packer(stream).pack(value)
    return stream.getvalue()


def test_rows_pack_to_the_bytes_of_a_plain_list_and_repr_as_their_count() -> None:
    rows = [{"fact_id": f"fct_{i}", "confidence": 0.5, "t_to": None} for i in range(3)]
    assert packed({"rows": RowList(rows)}) == packed({"rows": rows})
    assert repr({"rows": RowList(rows)}) == "{'rows': <3 rows>}"


def test_row_repr_variant_passes_plain_lists_until_it_ends() -> None:
    from apexmem_neo.store.neo4j import store as neo4j_store

    with write_ab.row_repr():
        assert neo4j_store.RowList is list
    assert neo4j_store.RowList is RowList
