#!/usr/bin/env bash
# Runs a fixed set of rarity commands and keeps every output (stdout, report
# tables, written files), so that two builds can be compared after a
# refactor that must not change results:
#
#   tools/golden_outputs.sh OLD_BINARY /tmp/old ../shared/data
#   tools/golden_outputs.sh NEW_BINARY /tmp/new ../shared/data
#   python3 tools/golden_diff.py /tmp/old /tmp/new
#
# golden_diff.py compares the outputs with measured times removed.
set -uo pipefail
BIN=$(realpath "$1")
OUT=$2
DATA=$(realpath "$3")
rm -rf "$OUT"
mkdir -p "$OUT/in/bin" "$OUT/in/multi" "$OUT/files"
for f in ecoli4 glass6 yeast-2_vs_8 new_thyroid1 wisconsin; do cp "$DATA/binary/$f.csv" "$OUT/in/bin/"; done
for f in newthyroid glass; do cp "$DATA/multiclass/$f.csv" "$OUT/in/multi/"; done
python3 - "$DATA/binary/pima.csv" "$OUT/in" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, body = rows[0], rows[1:]
half = len(body) // 2
first = sorted(body[:half], key=lambda r: float(r[0]))
for name, part in [("train.csv", first[len(first) // 4:]), ("target.csv", body[half:])]:
    w = csv.writer(open(f"{sys.argv[2]}/{name}", "w", newline=""))
    w.writerow(head)
    w.writerows(part)
PY
cd "$OUT/files"
n=0
go() { # go NAME ARGS...: stdout to NAME.out, exit code to NAME.rc
    local name=$1; shift
    "$BIN" "$@" > "../$name.out" 2> "../$name.err"
    echo $? > "../$name.rc"
    n=$((n + 1))
}
IN=../in
go run_default run --quiet --format json -o run_default.rarity
go run_default_text run --quiet -o run_default_text.rarity
go run_cost run --quiet --dataset yeast4 --cost fn=5,fp=1 --metric cost --report report_cost --format json -o run_cost.rarity
go run_cost_text run --quiet --dataset pima --cost fn=5,fp=1 --metric cost -o run_cost_text.rarity
go run_benefit run --quiet --dataset pima --benefit amount=x4,overhead=50 --metric benefit --format json -o run_benefit.rarity
go run_multi run --quiet --dataset glass --format json --cv 1x3 -o run_multi.rarity
go run_models run --quiet --dataset ecoli4 -m "pt-bagging(n=20)" -m "under(beta=0.3)+forest(n=20)+correct+threshold(priors)" \
    -m "logistic+platt" -m "svm+isotonic(ensemble=true)" -m "smote+tree+tune(metric=g_mean)" -m "rus-boost(n=10)" \
    -m "easy-ensemble(n=3,rounds=10)" -m "knn(k=3)+roc-closest" --cost fn=3,fp=1 --report report_models --format json -o run_models.rarity
go run_models_text run --quiet --dataset ecoli4 -m "lda" -m "qda(reg=0.1)" -m "gnb+threshold(priors)" -m "nb-binned" -m "adac2(n=10)" -m "logitboost(n=10)" -m "svdd" -m "rdt(n=5)" --cv 1x5 -o run_models_text.rarity
for m in "pt-bagging(n=20)" "under(beta=0.2)+forest(n=10)+correct+threshold(priors)" "smote-bagging(n=10)+correct(mode=average)+threshold(f1)" \
         "logistic+platt+cost(fn=5,fp=1)" "bagging(n=10,learner=tree(max_depth=3),sample=under(beta=0.5))+correct" "svm(kernel=linear)+tune(metric=cost,fn=4,fp=1)"; do
    go "evaluate_$n" evaluate --quiet --dataset glass6 --model "$m" --cv 5 --format json
done
go evaluate_loo evaluate --quiet --dataset glass6 --model logistic --cv loo --format json
go evaluate_multi evaluate --quiet --dataset newthyroid --model "underover-bagging(n=10)+lambda(0.5,0.3,0.2)" --cv 2x3 --format json
go evaluate_text evaluate --quiet --dataset pima --model "eb-bagging(n=10)" --cv 5x2
go fit fit --quiet --dataset yeast4 --model "under(beta=0.1)+forest(n=20)+correct+threshold(priors)" -o fit.rarity --format json
go fit_json fit --quiet --dataset glass --model "pt-bagging(n=5)" -o fit_json.rarity --json-model
go predict predict --quiet fit.rarity --dataset yeast4 -o predict.csv
go predict_json predict --quiet fit_json.rarity --dataset glass -o predict_json.csv
for m in under over smote borderline-smote adasyn hybrid tomek enn cnn oss ncl nearmiss1 nearmiss2 nearmiss3 smote-tomek smote-enn eb rb underover balanced-bootstrap; do
    go "resample_$m" resample --quiet --dataset ecoli4 --method "$m" -o "resample_$m.csv" --format json
done
go resample_beta resample --quiet --dataset yeast4 --method under --beta 0.2 -o resample_beta.csv --format json
go resample_text resample --quiet --dataset yeast4 --method smote --k 3 --amount 200 --standardise -o resample_text.csv
go score score --quiet predict.csv --truth label --proba p_1 --format json
go score_text score --quiet predict.csv --truth label --proba p_1 --threshold 0.3
go select_rt select --quiet --train $IN/train.csv --target $IN/target.csv --learners "tree,gnb,logistic,forest(n=10,max_depth=4)" --format json --truth class
go select_rt_text select --quiet --train $IN/train.csv --target $IN/target.csv --learners "tree,gnb,logistic" --truth class
go select_cv select --quiet --train $IN/train.csv --target $IN/target.csv --learners "tree,gnb,logistic" --method cv --format json
go select_loo select --quiet --train $IN/train.csv --target $IN/target.csv --learners "tree,gnb" --method loo
go select_benefit select --quiet --train $IN/train.csv --target $IN/target.csv --learners "tree,gnb" --benefit amount=x4,overhead=50 --format json
go inspect inspect --quiet --dataset yeast4 --format json
go inspect_text inspect --quiet --dataset glass
go datasets datasets --quiet --format json
go gen_gauss --quiet generate gaussian --n 500 -o gauss.csv --format json
go gen_fraud --quiet generate fraud --n 2000 -o fraud.csv --format json
go exp_cal --quiet experiment calibration --data-dir $IN/bin --learners "forest(n=10),logistic" --cv 2x2 --levels 1,0.5 --report report_cal --format json
go exp_cal_text --quiet experiment calibration --data-dir $IN/bin --learners "tree" --cv 1x3 --levels 1,0.25
go exp_pt --quiet experiment pt-bagging --data-dir $IN/bin --data-dir $IN/multi --sizes 5,10 --cv 1x2 --report report_pt --format json
go exp_pt_text --quiet experiment pt-bagging --data-dir $IN/bin --sizes 3,6 --cv 1x2
go exp_rt --quiet experiment reverse-testing --data-dir $IN/bin --learners "tree,gnb,logistic" --splits 2 --variant paper --variant default --variant "priors,decide=sum" --report report_rt --format json
go exp_rt_class --quiet experiment reverse-testing --data-dir $IN/bin --data-dir $IN/multi --learners "tree,gnb" --splits 2 --bias class --format json
go exp_rt_text --quiet experiment reverse-testing --data-dir $IN/bin --learners "tree,logistic" --splits 1 --bias none --metric g_mean
echo "$n commands run into $OUT"
