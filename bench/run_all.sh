#!/usr/bin/env bash
# Every benchmark, back to back, with the sizes the README figures use (about 14 minutes on an
# idle 2-core machine). Output goes to stdout; redirect it to keep it.
set -euo pipefail
cd "$(dirname "$0")/.."
P=.venv/bin/python
echo "== write $(date -u)"; $P bench/bench_write.py --sizes 1000 10000 --rounds 15
echo "== search $(date -u)"; $P bench/search_bench.py --sizes 1000,10000,50000 --queries 200
echo "== retract $(date -u)"; $P bench/bench_retract.py --runs 3
echo "== remember $(date -u)"; $P bench/bench_remember.py --size 10000 --count 1000
echo "== gate $(date -u)"; $P bench/bench_gate.py
echo "== agents $(date -u)"; $P bench/bench_agents.py --memories 10000 --rounds 30
echo "== sync $(date -u)"; $P bench/bench_sync.py
echo "== git processes per operation, main and this tree $(date -u)"; $P bench/bench_gitcalls.py --rounds 5
echo "== done $(date -u)"
