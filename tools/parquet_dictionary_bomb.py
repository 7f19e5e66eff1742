"""Writes tests/fixtures/fuzz/parquet-dictionary-count.parquet and
parquet-page-size.parquet.

The input the Parquet fuzz harness found (seed 404) made the reader fill a
13 GB dictionary: a dictionary page header of a float column claimed 1.6
billion values in a page of a few bytes, and the parquet crate sizes the
dictionary from that count before it decodes a value. This script rebuilds such a
file from a valid one written by rarity itself:

    rarity generate gaussian --n 6 --d 1 --positive-rate 0.5 --seed 42 -o g.parquet
    python3 tools/parquet_dictionary_bomb.py g.parquet tests/fixtures/fuzz

The first column chunk starts with a snappy-compressed PLAIN dictionary
page. Its `num_values` (a one-byte zigzag varint in Thrift's compact
encoding) becomes 3e8 (five bytes; 2.4 GB of float64); the four bytes are taken from the
page body, which is re-encoded as a 44-byte snappy literal, so that every
offset in the footer still holds. The second file is the same page with
its true count and an uncompressed size of 2e9 bytes instead (the fuzzer
found a 1.5 KB file whose page claimed 2 GB: the crate allocated it and
the Snappy decoder filled it).
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


def patch(data, uncompressed, values):
    """The first page with the given header fields, the same length."""
    # PAR1, then the page header: type (DICTIONARY_PAGE = 2),
    # uncompressed size, compressed size, then field 7: the dictionary
    # page header {num_values, encoding, is_sorted}.
    head = bytes([0x15, 0x04, 0x15, zigzag(48), 0x15, zigzag(50), 0x4C, 0x15])
    assert data[4 : 4 + len(head)] == head, "not the file this script expects"
    rest = data[4 + len(head) + 1 :]  # after num_values (one byte)
    assert rest[:4] == bytes([0x15, 0x00, 0x12, 0x00]) and rest[4] == 0x00
    body = rest[5 : 5 + 50]
    assert body[0] == 48 and body[1] == (47 << 2), "a 48-byte snappy literal"
    new_head = bytes([0x15, 0x04, 0x15]) + varint(zigzag(uncompressed))
    new_head += bytes([0x15, zigzag(46), 0x4C, 0x15]) + varint(zigzag(values))
    new_head += bytes(rest[:5])
    old_len = len(head) + 1 + 5 + 50
    cut = len(new_head) - (len(head) + 1 + 5)  # bytes the body gives up
    n = 48 - cut
    assert n == 44, "the compressed size written above is 2 + 44"
    new_body = bytes([n, (n - 1) << 2]) + bytes(body[2 : 2 + n])
    page = new_head + new_body
    out = bytearray(data)
    out[4 : 4 + old_len] = page
    assert len(page) == old_len and len(out) == len(data)
    return bytes(out)


def main(src, dst_dir):
    data = bytearray(open(src, "rb").read())
    files = {
        # 3e8 float64 values claimed in 44 bytes: 2.4 GB.
        "parquet-dictionary-count.parquet": patch(data, 44, 300_000_000),
        # 2e9 bytes claimed for a 46-byte Snappy page, 44 bytes in truth.
        "parquet-page-size.parquet": patch(data, 2_000_000_000, 5),
    }
    for name, out in files.items():
        open(f"{dst_dir}/{name}", "wb").write(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
