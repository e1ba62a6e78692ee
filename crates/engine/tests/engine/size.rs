//! Values the engine writes out instead of parsing at run time, and panics that no longer format
//! an error, so that the page's first load does not link an error type's `Debug` (a parse
//! followed by `expect` did): each value equals what the parser reads, and what a panic leaves
//! out is said here.

use vram_engine::{
    hub::HubEndpoint, hub::DEFAULT_ENDPOINT, model::decode_arch, scenario::LoraTargets,
};

#[test]
fn all_linear_targets_are_the_seven_linear_modules_as_parsed() {
    assert_eq!(
        LoraTargets::all_linear(),
        LoraTargets::parse("q,k,v,o,gate,up,down").unwrap()
    );
    assert_eq!(
        LoraTargets::all_linear().names(),
        ["q", "k", "v", "o", "gate", "up", "down"]
    );
}

#[test]
fn the_default_hub_endpoint_is_what_parsing_huggingface_co_reads() {
    let parsed = HubEndpoint::parse(DEFAULT_ENDPOINT).unwrap();
    assert_eq!(HubEndpoint::default(), parsed);
    assert_eq!(HubEndpoint::default().host(), "huggingface.co");
}

#[test]
fn every_preset_decodes_and_a_failure_names_its_reason() {
    // Preset::architecture panics without the reason (the page's size); this says it
    for p in vram_engine::model::presets::all() {
        if let Err(e) = decode_arch(p.arch) {
            panic!("preset {} does not decode: {e}", p.id);
        }
        assert_eq!(p.architecture(), decode_arch(p.arch).unwrap(), "{}", p.id);
    }
}
