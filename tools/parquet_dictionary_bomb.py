"""Writes tests/fixtures/fuzz/parquet-dictionary-count.parquet.

The input the Parquet fuzz harness found (seed 404) made the reader fill a
13 GB dictionary: a dictionary page header of a float column claimed 1.6
billion values in a page of a few bytes, and the parquet crate sizes the
dictionary from that count before it decodes a value. This script rebuilds such a
file from a valid one written by rarity itself:

    rarity generate gaussian --n 6 --d 1 --positive-rate 0.5 --seed 42 -o g.parquet
    python3 tools/parquet_dictionary_bomb.py g.parquet tests/fixtures/fuzz/parquet-dictionary-count.parquet

The first column chunk starts with a snappy-compressed PLAIN dictionary
page. Its `num_values` (a one-byte zigzag varint in Thrift's compact
encoding) becomes 3e8 (five bytes; 2.4 GB of float64); the four bytes are taken from the
page body, which is re-encoded as a 44-byte snappy literal, so that every
offset in the footer still holds.
"""

import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(n):
    return (n << 1) ^ (n >> 63)


def main(src, dst):
    data = bytearray(open(src, "rb").read())
    # PAR1, then the page header: type (DICTIONARY_PAGE = 2),
    # uncompressed size, compressed size, then field 7: the dictionary
    # page header {num_values, encoding, is_sorted}.
    head = bytes([0x15, 0x04, 0x15, zigzag(48), 0x15, zigzag(50), 0x4C, 0x15])
    assert data[4 : 4 + len(head)] == head, "not the file this script expects"
    rest = data[4 + len(head) + 1 :]  # after num_values (one byte)
    assert rest[:4] == bytes([0x15, 0x00, 0x12, 0x00]) and rest[4] == 0x00
    body = rest[5 : 5 + 50]
    assert body[0] == 48 and body[1] == (47 << 2), "a 48-byte snappy literal"
    new_head = bytes([0x15, 0x04, 0x15, zigzag(44), 0x15, zigzag(46), 0x4C, 0x15])
    new_head += varint(zigzag(300_000_000)) + bytes(rest[:5])
    new_body = bytes([44, 43 << 2]) + bytes(body[2 : 2 + 44])
    page = new_head + new_body
    old_len = len(head) + 1 + 5 + 50
    assert len(page) == old_len
    data[4 : 4 + old_len] = page
    open(dst, "wb").write(bytes(data))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
