"""What upstream's exporter writes for a checkpoint, stated independently of the workbench.

Written for the workbench's tests from the behaviour of cactus-compute/needle (needle/model/
export.py build_export, _pack_cact, _tensors, _head_tensors, _cq_pack; architecture.py
kv_budget_window, effective_kv_window, TransformerConfig defaults; quantize.py parse_bits_map,
canonical_tensor_name, _bits_for, _lloyd_max_gaussian), in plain numpy: it shares no code with
the workbench (Java) nor with upstream (which needs JAX). The CQ rotation is float32 numpy, as
upstream computes it.

usage: expected_export.py JOBS.json
JOBS.json: [{"checkpoint": P, "tokenizer": FILE or null, "bits": SPEC or null, "group": G, "out": P}]
Writes each expected .cact to "out" and prints one JSON summary per job.
"""
import json
import pickle
import re
import struct
import sys

import numpy as np

if not hasattr(np, "_core"):  # numpy 1.x reading a numpy 2 pickle
    import numpy.core.multiarray
    import numpy.core.numeric
    sys.modules["numpy._core"] = np.core
    sys.modules["numpy._core.multiarray"] = np.core.multiarray
    sys.modules["numpy._core.numeric"] = np.core.numeric

DEFAULTS = dict(vocab_size=8192, d_model=512, attn_dim=0, num_heads=8, num_kv_heads=4, num_layers=12,
                max_seq_len=2048, rope_theta=100000.0, engram_orders=(2, 3), engram_heads=0,
                engram_slots=8192, engram_layers=(2, 15), mhc_lanes=4, kv_window=0, kv_bits=8,
                weight_bits="")
TERNARY = 1.58
TERNARY_RECORD = 5
CENTRE = 1.2240064
CODEBOOK_CACHE = {}


def config_of(raw):
    c = dict(DEFAULTS)
    c.update({k: v for k, v in raw.items() if k in DEFAULTS})
    c["attn_dim"] = c["attn_dim"] or c["d_model"]
    return c


def window_of(c):
    """The budget window, then the configured one if smaller (effective_kv_window)."""
    head_dim = c["attn_dim"] // c["num_heads"]
    kv = c["num_kv_heads"] * head_dim
    d = c["d_model"]
    per_position = c["num_layers"] * (2 * kv + 2 * (kv // 32) * 4) + len(c["engram_layers"]) * (d + (d // 32) * 4)
    budget = ((11 * 1024 * 1024 + 512 * 1024) // per_position) // 32 * 32
    budget = max(160, min(budget, c["max_seq_len"]))
    return min(budget, c["kv_window"]) if c["kv_window"] else budget


def canonical(name):
    n = re.sub(r"^layer\d+\.", "attn.", name)
    n = re.sub(r"^engrams?_?(\d+)[./]?", r"engram\1.", n)
    n = n[len("stack/"):] if n.startswith("stack/") else n
    n = n.replace("layers/block/self_attn/", "attn.").replace("mtp_block/self_attn/", "mtp.")
    n = n[:-len("/kernel")] if n.endswith("/kernel") else n
    n = "embedding" if n == "embedding/embedding" else n
    n = re.sub(r"^(engram\d+\.)embedding$", r"\1tables", n)
    return n.replace("/", ".")


def width(text):
    return TERNARY if float(text) == TERNARY else int(text)


def bits_rule(spec):
    """(prefix -> bits, default) of a bits map; a bare number is that width everywhere."""
    if "=" not in spec:
        return {}, width(spec)
    table, default = {}, None
    for part in spec.split(","):
        if not part.strip():
            continue
        key, value = part.split("=", 1)
        if key.strip() == "default":
            default = width(value)
        else:
            table[canonical(key.strip())] = width(value)
    return table, default


def bits_for(name, rule):
    table, default = rule
    keys = [k for k in table if canonical(name).startswith(k)]
    return table[max(keys, key=len)] if keys else default


def lloyd_max(levels):
    x = np.sort(np.random.RandomState(0).randn(400000))
    c = x[((np.arange(levels) + 0.5) / levels * x.size).astype(int)].astype(np.float64)
    for _ in range(200):
        cell = np.searchsorted((c[:-1] + c[1:]) / 2.0, x)
        for k in range(levels):
            members = cell == k
            if members.any():
                c[k] = x[members].mean()
    return np.sort(c)


def codebook(bits, group):
    if (bits, group) not in CODEBOOK_CACHE:
        centres = np.array([-CENTRE, 0.0, CENTRE]) if bits == TERNARY else lloyd_max(1 << bits)
        CODEBOOK_CACHE[(bits, group)] = (centres / np.sqrt(group)).astype(np.float32)
    return CODEBOOK_CACHE[(bits, group)]


def hadamard(n):
    h = np.ones((1, 1), np.float32)
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return (h / np.sqrt(n)).astype(np.float32)


def lsb_stream(codes, w):
    """Row-wise LSB-first bit stream of w-bit codes."""
    planes = (codes[..., None].astype(np.uint8) >> np.arange(w, dtype=np.uint8)) & 1
    return np.packbits(planes.reshape(codes.shape[0], -1), axis=-1, bitorder="little")


def cq_blob(matrix, bits, group):
    matrix = np.asarray(matrix, np.float32)
    rows, cols = matrix.shape
    padded = np.zeros((rows, -(-cols // group) * group), np.float32)
    padded[:, :cols] = matrix
    grouped = padded.reshape(rows, -1, group)
    rotated = grouped @ hadamard(group)
    norm = np.sqrt((rotated ** 2).sum(-1, keepdims=True))
    unit = rotated / np.maximum(norm, 1e-12)
    cb = codebook(bits, group)
    nearest = np.argmin(np.abs(unit[..., None] - cb), axis=-1).reshape(rows, -1)  # ties: the smaller index
    if bits == TERNARY:
        stream, record = lsb_stream(np.where(nearest == 0, 3, nearest - 1), 2), TERNARY_RECORD
    else:
        stream, record = lsb_stream(nearest, bits), bits
    return (3, matrix.shape, stream.tobytes() + norm[..., 0].astype(np.float16).tobytes(), group, record)


def half(array):
    array = np.asarray(array, np.float16)
    return (1, array.shape, array.tobytes(), 0, 0)


def tensors(params, c, rule, group):
    orders = tuple(c["engram_orders"])
    heads = c["engram_heads"] or max(1, c["d_model"] // (len(orders) * 128))
    sub_dim = c["d_model"] // (len(orders) * heads)
    tables = len(orders) * heads
    out = [("embedding", params["embedding"]["embedding"], "cq")]
    block = params["stack"]["layers"]["block"]
    attn, mlp = block["self_attn"], block["hadamard_mlp"]
    for i in range(c["num_layers"]):
        p = "layer%02d." % i
        out += [(p + "norm_in", block["ZCRMSNorm_0"]["scale"][i], "fp16")]
        out += [(p + k, attn[k]["kernel"][i].T, "cq") for k in ("q_proj", "k_proj", "v_proj")]
        out += [(p + "q_norm", attn["q_norm"]["scale"][i], "fp16"), (p + "k_norm", attn["k_norm"]["scale"][i], "fp16")]
        out += [(p + k, attn[k]["kernel"][i].T, "cq") for k in ("gate_proj", "out_proj")]
        out += [(p + "post_norm", block["post_attn_norm"]["scale"][i], "fp16"),
                (p + "attn_gate", np.reshape(block["attn_gate"][i], (1,)), "fp16"),
                (p + "pre_hada", block["pre_hada_norm"]["scale"][i], "fp16")]
        out += [(p + k, mlp[k][i], "fp16") for k in ("d1", "d2", "d3")]
    stack = params["stack"]
    out += [(k, stack[k], "fp16") for k in ("mhc_a_pre", "mhc_a_post", "mhc_a_res", "mhc_b_pre", "mhc_b_post", "mhc_b_res")]
    for k in ("mhc_phi_pre", "mhc_phi_post", "mhc_phi_res"):
        layers, inputs, lanes = stack[k].shape
        out.append((k, np.transpose(stack[k], (0, 2, 1)).reshape(layers * lanes, inputs), "cq"))
    for s in range(len(c["engram_layers"])):
        e = params["engrams_%d" % s]
        p = "engram%d." % s
        out += [(p + "tables", np.reshape(e["embedding"], (tables * c["engram_slots"], sub_dim)), "cq"),
                (p + "key_proj", e["key_proj"]["kernel"].T, "cq"), (p + "value_proj", e["value_proj"]["kernel"].T, "cq"),
                (p + "taps", e["taps"], "fp16")]
    out.append(("final_norm", stack["final_norm"]["scale"], "fp16"))
    present = [(k, code) for k, code in (("contrastive_head", 1), ("confidence_head", 2)) if k in params]
    if present:
        out.append(("heads.manifest", np.array([code for _, code in present]), "fp16"))
        for k, _ in present:
            proj = params[k]["proj"]
            kernel = np.asarray(proj["kernel"]).T
            bias = proj["bias"] if "bias" in proj else np.zeros(kernel.shape[0])
            out += [(k + ".probes", params[k]["probes"], "fp16"), (k + ".proj", kernel, "fp16"), (k + ".bias", bias, "fp16")]
    records = []
    for name, value, kind in out:
        records.append((name,) + (cq_blob(value, bits_for(name, rule), group) if kind == "cq" else half(value)))
    return records, orders, tables, sub_dim


def export(job):
    with open(job["checkpoint"], "rb") as f:
        ckpt = pickle.load(f)
    c = config_of(ckpt["config"])
    spec = job["bits"] or c["weight_bits"] or "4"
    records, orders, tables, sub_dim = tensors(ckpt["params"], c, bits_rule(spec), job["group"])
    if job["tokenizer"]:
        with open(job["tokenizer"], "rb") as f:
            records.append(("tokenizer", 4, (), f.read(), 0, 0))
    kv_window = window_of(c)
    sites = tuple(c["engram_layers"])
    header = struct.pack("<29If", 0x05E12A83, len(records), 28, kv_window, int(c["kv_bits"] or 8),
                         c["vocab_size"], c["d_model"], c["num_heads"], c["num_kv_heads"], c["num_layers"],
                         c["attn_dim"] // c["num_heads"], c["max_seq_len"], 1 << (c["d_model"] - 1).bit_length(),
                         c["mhc_lanes"], c["engram_slots"], sub_dim, tables, 4, max(orders), len(orders),
                         *(list(orders) + [0] * 4)[:4], len(sites), *(list(sites) + [0] * 4)[:4], float(c["rope_theta"]))
    header += np.concatenate([codebook(b, job["group"]) for b in (2, 3, 4)]).tobytes()
    position = len(header) + 44 * len(records)
    directory, blobs = b"", b""
    for name, dtype, shape, blob, group, bits in records:
        offset = (position + 63) // 64 * 64
        blobs += b"\0" * (offset - position) + blob
        position = offset + len(blob)
        directory += struct.pack("<BBHIIIIQQII", dtype, len(shape), 0, *(list(shape) + [0] * 4)[:4], offset, len(blob), group, bits)
    with open(job["out"], "wb") as f:
        f.write(header + directory + blobs)
    return {"out": job["out"], "kv_window": kv_window, "max_seq_len": c["max_seq_len"], "tensors": len(records),
            "names": [r[0] for r in records], "bits": spec, "bytes": len(header) + len(directory) + len(blobs)}


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        jobs = json.load(f)
    print(json.dumps([export(job) for job in jobs]))
