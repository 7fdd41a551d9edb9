package dev.needlewb.reference;

/** The per-call switches every stage of one forward reads. */
public record RunSettings(boolean quant, KvQuantizer kv, Taps taps, QuantWatch watch) {
    static RunSettings of(ForwardOptions o) {
        return new RunSettings(o.quant(), o.kvQuantizer(), o.taps(), o.watch());
    }

    public RunSettings withoutTaps() {
        return new RunSettings(quant, kv, Taps.off(), watch);
    }
}
