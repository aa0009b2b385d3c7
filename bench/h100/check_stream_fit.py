"""Check the loaded-latency fits against the Triton stream sweep (bench/device/sweep.py, section stream).

Usage (from the repository root): python3 bench/h100/check_stream_fit.py

The sweep's grid-stride read keeps one iteration's loads in flight per CTA, so a CTA's
outstanding bytes are fixed by its code, not by the device. Each configuration's bytes per CTA
come from its 8-CTA row on the H100 (Little's law at that row's own, nearly idle, load); every
row with 132-528 CTAs of both GPUs is then a prediction: the bandwidth X with X * L(X) = CTAs x
bytes (core's dramBandwidthAtInFlight), under each fit of each GPU's calibration file.
"""
import json

CAL = {
    "h100": "packages/family-hopper/src/reference/h100-loaded-latency-ours.json",
    "h200": "packages/backend-h200/src/calibration/h200-loaded-latency-ours.json",
}
SWEEP = {"h100": "bench/results/h100-stream/sweep.json", "h200": "bench/results/h200/sweep.json"}
# The simulation's unloaded HBM latency (658 cycles at 1.98 GHz), the base of the chase fit.
CHASE_BASE_NS = 658 / 1.98


def curves(dev):
    d = json.load(open(CAL[dev]))
    c, s = d["fit"], d["streamFit"]
    return {"chase": (CHASE_BASE_NS, c["queueNs"], c["saturationBytesPerNs"]), "stream": (s["unloadedNs"], s["queueNs"], s["saturationBytesPerNs"])}


def latency(f, x):
    l0, q, xs = f
    return l0 + q * (x / xs) / (1 - x / xs)


def bandwidth(f, w):
    l0, q, xs = f
    a, b, c = q - l0, l0 * xs + w, -w * xs
    return 2 * -c / (b + (b * b - 4 * a * c) ** 0.5)


rows = {dev: json.load(open(p))["stream"]["rows"] for dev, p in SWEEP.items()}
fits = {dev: curves(dev) for dev in CAL}
for name in ("chase", "stream"):
    for dev in ("h100", "h200"):
        errs = []
        for r8 in (r for r in rows["h100"] if r["ctas"] == 8):
            b = r8["bytesPerIterPerCta"]
            w = r8["GBps"] / 8 * latency(fits["h100"][name], r8["GBps"])
            for r in rows[dev]:
                if r["bytesPerIterPerCta"] == b and 132 <= r["ctas"] <= 528:
                    errs.append(bandwidth(fits[dev][name], w * r["ctas"]) / r["GBps"] - 1)
        print(f"{name:6s} fit, {dev}: {len(errs)} rows, mean {sum(errs) / len(errs):+.3f}, MAPE {sum(map(abs, errs)) / len(errs):.3f}, worst {max(errs, key=abs):+.3f}")
