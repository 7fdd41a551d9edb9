"""Checks notebooks/needle_torch.py on a workbench-written state dict against the golden logits.

usage: check_torch_logits.py STATE_DICT.pt GOLDEN_MINI_DIR [--dtype float64|float32]
                             [--seqs s001,s007,s040] [--params deq] [--tolerance 1e-9]

For each sequence it prints `<seq> max_rel_err=<e>` where e = max |ours - golden| / max |golden|
over the sequence's logits (golden = forward.npz `logits.<seq>.<params>.q0`, float64 upstream
numerics with quant=False), and the same measure for the probe heads (heads.npz
`confidence.<seq>.<params>.q0`, `contrastive.<seq>.<params>.q0`), then `PASS` or `FAIL`; exits 1
if any error exceeds the tolerance. The model is the golden 'mini' geometry.
"""

import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import needle_torch  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("state_dict")
    ap.add_argument("golden")
    ap.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    ap.add_argument("--seqs", default="s001,s007,s040")
    ap.add_argument("--params", default="deq")
    ap.add_argument("--tolerance", type=float, default=1e-12)
    a = ap.parse_args()

    dtype = getattr(torch, a.dtype)
    model = needle_torch.load(a.state_dict, needle_torch.NeedleConfig.mini(), dtype)
    with open(os.path.join(a.golden, "sequences.json")) as f:
        sequences = json.load(f)
    golden = np.load(os.path.join(a.golden, "forward.npz"))
    heads = np.load(os.path.join(a.golden, "heads.npz"))
    worst = 0.0
    for seq in a.seqs.split(","):
        tokens = torch.tensor(sequences[seq]["tokens"], dtype=torch.int64)
        with torch.no_grad():
            outputs = {
                "logits": (model(tokens), golden["logits.%s.%s.q0" % (seq, a.params)]),
                "confidence": (model.confidence(tokens), heads["confidence.%s.%s.q0" % (seq, a.params)]),
                "contrastive": (model.contrastive(tokens), heads["contrastive.%s.%s.q0" % (seq, a.params)]),
            }
        for name, (ours, ref) in outputs.items():
            err = float(np.abs(ours.double().numpy() - ref).max() / np.abs(ref).max())
            worst = max(worst, err)
            print("%s %s max_rel_err=%.3e" % (seq, name, err))
    ok = worst <= a.tolerance
    print("%s worst=%.3e tolerance=%.1e dtype=%s" % ("PASS" if ok else "FAIL", worst, a.tolerance, a.dtype))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
