#!/usr/bin/env bash
# Runs every `rarity` example of README.md, in order, in a scratch directory,
# and says which failed (with its stderr) and how long each took:
#
#   tools/readme_examples.sh [BINARY] [DIR]
#
# BINARY defaults to target/release/rarity, DIR to a new temporary directory.
# The examples' stand-ins for the reader's own files are written first:
# data.dat (KEEL, a nominal input), survey.csv (';'-delimited, a text column,
# a constant column), preds.csv (labels y and probabilities p_1) and, once
# `generate fraud` has written transactions.csv, new.csv (a copy of it: a
# label column is ignored when predicting), eu.csv (';'-delimited, decimal
# commas) and transactions.parquet / new.parquet (with an id column txn_id).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:-$ROOT/target/release/rarity}")
DIR=${2:-$(mktemp -d)}
mkdir -p "$DIR" && cd "$DIR" || exit 2

cat > data.dat <<'EOF'
@relation toy
@attribute colour {red, green, blue}
@attribute size real [0.0, 10.0]
@attribute class {negative, positive}
@inputs colour, size
@outputs class
@data
red, 1.0, negative
green, 2.5, negative
blue, 3.0, positive
red, 4.5, negative
green, 5.0, negative
blue, 6.5, positive
red, 7.0, negative
green, 8.5, negative
EOF
python3 - <<'EOF'
import random
r = random.Random(1)
with open("survey.csv", "w") as f:
    f.write("age;region;constant;answer\n")
    for i in range(200):
        f.write(f"{20 + r.randrange(50)};{r.choice(['north', 'south', 'east'])};1;{int(r.random() < 0.15)}\n")
with open("eu.csv", "w") as f:
    f.write("amount;rate;label\n")
    for i in range(200):
        f.write(f"{r.randrange(10, 500)},{r.randrange(100):02d};{r.random():.3f}".replace(".", ",") + f";{int(r.random() < 0.2)}\n")
with open("preds.csv", "w") as f:
    f.write("y,p_1\n")
    for i in range(500):
        y = int(r.random() < 0.1)
        f.write(f"{y},{min(1.0, max(0.0, r.gauss(0.6 if y else 0.2, 0.2))):.4f}\n")
EOF

failed=0
n=0
while IFS= read -r line; do
    if [ -f transactions.csv ] && [ ! -f new.csv ]; then
        cp transactions.csv new.csv
        # Parquet stand-ins with an identifier column txn_id.
        awk -F, 'NR == 1 {print "txn_id," $0; next} {print NR - 1 "," $0}' transactions.csv > with-id.csv
        "$BIN" resample with-id.csv --target class --method none -o transactions.parquet > /dev/null
        cp transactions.parquet new.parquet
    fi
    n=$((n + 1))
    start=$(date +%s.%N)
    eval "\"$BIN\" ${line#rarity }" > "example-$n.out" 2> "example-$n.err"
    rc=$?
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    if [ $rc -eq 0 ]; then
        printf 'ok    %6.1f s  %s\n' "$secs" "$line"
    else
        failed=$((failed + 1))
        printf 'FAIL  %6.1f s  %s\n' "$secs" "$line"
        sed 's/^/        /' "example-$n.err"
    fi
done < <(awk '/^```sh/ {on = 1; next} /^```/ {on = 0} on && /^rarity / {sub(/ +#.*$/, ""); print}' "$ROOT/README.md")
echo "$n examples, $failed failed (outputs in $DIR)"
[ $failed -eq 0 ]
