//! What a GGUF tensor's name says about it.

/// `blk.N.ffn_{up,down,gate,gate_up}_{,ch}exps.*`: a MoE layer's expert weights.
/// (Matched without allocating: the page runs it for every tensor of every plan it draws.)
pub(crate) fn is_expert(name: &str) -> bool {
    name.match_indices(".ffn_").any(|(at, _)| {
        let rest = &name[at + ".ffn_".len()..];
        ["up", "down", "gate", "gate_up"].iter().any(|part| {
            rest.strip_prefix(part)
                .is_some_and(|r| r.starts_with("_exps") || r.starts_with("_chexps"))
        })
    })
}
