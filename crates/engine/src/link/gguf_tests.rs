//! A picked GGUF file in a share link (`gg=`): the page keeps a file's summary as a link can carry
//! it (`GgufSummary::for_link`), however detailed the file; the link stays within its limit and
//! reads back to exactly that summary, whose VRAM and RAM are the file's, exactly or within what
//! its notice says. `FUZZ_CASES` sets the cases (default 60: each plans two headers).

use crate::{link::*, llamacpp::*, local::*, scenario::*};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60)
}

const TYPES: [GgmlType; 5] = [
    GgmlType::Q4K,
    GgmlType::Q6K,
    GgmlType::Q5K,
    GgmlType::Q8_0,
    GgmlType::F16,
];
const NAMES: [&str; 7] = [
    "attn_q.weight",
    "attn_k.weight",
    "attn_v.weight",
    "attn_output.weight",
    "ffn_gate.weight",
    "ffn_up.weight",
    "ffn_down.weight",
];
const N_EMBD: u64 = 2048;

/// One layer: each matrix's type and the FFN's width (in 256s), and whether it has experts.
#[derive(Clone, Debug)]
struct LayerSpec {
    types: Vec<usize>,
    ff_blocks: u64,
    experts: bool,
}

fn arb_layer() -> impl Strategy<Value = LayerSpec> {
    (
        prop::collection::vec(0..TYPES.len(), NAMES.len()),
        1u64..24,
        prop::bool::weighted(0.2),
    )
        .prop_map(|(types, ff_blocks, experts)| LayerSpec {
            types,
            ff_blocks,
            experts,
        })
}

fn summary(layers: &[LayerSpec]) -> GgufSummary {
    let n = layers.len() as u64;
    let mut groups = vec![
        TensorGroup {
            name: "token_embd.weight".into(),
            dims: vec![N_EMBD, 32_000],
            ggml_type: GgmlType::Q4K,
            layers: vec![],
        },
        TensorGroup {
            name: "output_norm.weight".into(),
            dims: vec![N_EMBD],
            ggml_type: GgmlType::F32,
            layers: vec![],
        },
        TensorGroup {
            name: "output.weight".into(),
            dims: vec![N_EMBD, 32_000],
            ggml_type: GgmlType::Q6K,
            layers: vec![],
        },
    ];
    for (il, layer) in layers.iter().enumerate() {
        let il = il as u32;
        let ff = layer.ff_blocks * 256;
        for (name, &ty) in NAMES.iter().zip(&layer.types) {
            let dims = match *name {
                "ffn_down.weight" => vec![ff, N_EMBD],
                "ffn_gate.weight" | "ffn_up.weight" => vec![N_EMBD, ff],
                "attn_k.weight" | "attn_v.weight" => vec![N_EMBD, 512],
                _ => vec![N_EMBD, N_EMBD],
            };
            groups.push(TensorGroup {
                name: (*name).into(),
                dims,
                ggml_type: TYPES[ty],
                layers: vec![(il, il)],
            });
        }
        for norm in ["attn_norm.weight", "ffn_norm.weight"] {
            groups.push(TensorGroup {
                name: norm.into(),
                dims: vec![N_EMBD],
                ggml_type: GgmlType::F32,
                layers: vec![(il, il)],
            });
        }
        if layer.experts {
            groups.push(TensorGroup {
                name: "ffn_up_exps.weight".into(),
                dims: vec![N_EMBD, 512, 8],
                ggml_type: GgmlType::Q4K,
                layers: vec![(il, il)],
            });
        }
    }
    GgufSummary {
        arch: "llama".into(),
        fields: vec![
            ('L', vec![n]),
            ('C', vec![8192]),
            ('E', vec![N_EMBD]),
            ('F', vec![6144]),
            ('H', vec![16]),
            ('K', vec![4]),
            ('V', vec![32_000]),
        ],
        groups,
    }
}

fn scenario(summary: GgufSummary, ngl: u64) -> Scenario {
    Scenario {
        job: Job::Local,
        ngl,
        gguf: Some(Box::new(GgufFile {
            name: "model.gguf".into(),
            summary,
            source: None,
        })),
        ..Scenario::default()
    }
}

/// Each device's total for the scenario's model and settings on `backend`.
fn totals(s: &Scenario, backend: Backend) -> Vec<u64> {
    let header = local_header(s).expect("the summary's header reads");
    let plan = plan_llama(&header, &local_settings(s), backend).expect("the plan holds");
    plan.devices.iter().map(|(_, b)| b.total()).collect()
}

fn tensor_count(s: &Scenario) -> u64 {
    local_header(s).unwrap().tensors().len() as u64
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn a_gguf_link_always_fits_and_reads_back_to_the_same_memory_or_says_how_it_differs(
        layers in prop::collection::vec(arb_layer(), 1..160),
        ngl in 0u64..200,
        backend in prop::sample::select(vec![Backend::Cuda, Backend::CpuOnly]),
    ) {
        let file = scenario(summary(&layers), ngl);
        let picked = scenario(summary(&layers).for_link(), ngl);
        let link = crate::link::encode(&picked, &PageSettings::default());
        prop_assert!(link.chars().count() + LINK_ADDRESS_ROOM <= MAX_LINK_CHARS, "{} chars", link.len());
        let decoded = crate::link::decode(&link);
        let back = decoded.scenario;
        let Some(kept) = &back.gguf else {
            prop_assert!(decoded.notices.iter().any(|n| matches!(n, Notice::GgufLeftOut(_))));
            return Ok(());
        };
        prop_assert_eq!(&kept.summary, &picked.gguf.as_ref().unwrap().summary);
        let detail = kept.summary.detail();
        let said = decoded.notices.contains(&Notice::GgufDetail(detail));
        prop_assert!(detail == crate::llamacpp::Detail::Tensors || said, "{detail:?} without its notice");
        prop_assert_eq!(
            local_header(&back).unwrap().tensor_bytes(),
            local_header(&file).unwrap().tensor_bytes()
        );
        let slack = PADDING_PER_TENSOR * (tensor_count(&file) + 1);
        let close = |a: &[u64], b: &[u64]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.abs_diff(*y) <= slack);
        match detail {
            crate::llamacpp::Detail::Tensors => prop_assert_eq!(&kept.summary, &file.gguf.as_ref().unwrap().summary),
            crate::llamacpp::Detail::LayerBytes => {
                let (was, now) = (totals(&file, backend), totals(&back, backend));
                prop_assert!(close(&was, &now), "{was:?} vs {now:?} (slack {slack})");
            }
            crate::llamacpp::Detail::ModelBytes => {
                // exact where the layers are not split between devices
                let all = |s: &Scenario| Scenario { ngl: 999, ..s.clone() };
                let (was, now) = (totals(&all(&file), backend), totals(&all(&back), backend));
                prop_assert!(close(&was, &now), "{was:?} vs {now:?} (slack {slack})");
            }
        }
    }
}

fn fragmented(n: usize, varying_ff: bool) -> Vec<LayerSpec> {
    (0..n)
        .map(|il| LayerSpec {
            types: (0..NAMES.len())
                .map(|t| (il * 7 + t * 3) % TYPES.len())
                .collect(),
            ff_blocks: if varying_ff {
                1 + (il as u64 * 5) % 23
            } else {
                12
            },
            experts: false,
        })
        .collect()
}

/// The file as the page keeps it, written to a link and read back.
#[track_caller]
fn read_back(layers: &[LayerSpec]) -> (Scenario, Decoded) {
    let s = scenario(summary(layers).for_link(), 10);
    let link = crate::link::encode(&s, &PageSettings::default());
    assert!(link.chars().count() + LINK_ADDRESS_ROOM <= MAX_LINK_CHARS);
    (s, crate::link::decode(&link))
}

#[test]
fn a_short_summary_travels_whole_without_a_notice() {
    let (s, d) = read_back(&fragmented(4, false));
    assert_eq!(d.scenario.gguf, s.gguf);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
}

#[test]
fn a_summary_with_many_tensor_types_keeps_each_layers_bytes() {
    let layers = fragmented(80, false);
    assert!(summary(&layers).to_text().len() > MAX_LINK_CHARS);
    let (s, d) = read_back(&layers);
    let back = d.scenario.gguf.as_ref().unwrap();
    assert_eq!(back.summary.detail(), crate::llamacpp::Detail::LayerBytes);
    assert_eq!(
        d.notices,
        vec![Notice::GgufDetail(crate::llamacpp::Detail::LayerBytes)]
    );
    let per_layer = |s: &Scenario| -> Vec<u64> {
        let h = local_header(s).unwrap();
        h.layers().iter().map(|l| l.bytes()).collect()
    };
    assert_eq!(per_layer(&d.scenario), per_layer(&s));
}

#[test]
fn a_summary_whose_layers_all_differ_keeps_the_models_bytes_spread_evenly() {
    let layers = fragmented(150, true);
    assert!(summary(&layers).by_layer_bytes().to_text().len() > MAX_LINK_CHARS);
    let (s, d) = read_back(&layers);
    let back = d.scenario.gguf.as_ref().unwrap();
    assert_eq!(back.summary.detail(), crate::llamacpp::Detail::ModelBytes);
    assert_eq!(
        d.notices,
        vec![Notice::GgufDetail(crate::llamacpp::Detail::ModelBytes)]
    );
    let bytes = |s: &Scenario| local_header(s).unwrap().tensor_bytes();
    assert_eq!(bytes(&d.scenario), bytes(&s));
}

#[test]
fn per_layer_fields_too_long_for_a_link_leave_the_file_out_with_a_notice() {
    let mut sum = summary(&fragmented(2, false));
    // a head count per layer that changes at every one of 4,000 layers
    sum.fields
        .push(('K', (0..4_000u64).map(|i| 1 + i % 2).collect()));
    let s = scenario(sum, 10);
    let link = crate::link::encode(&s, &PageSettings::default());
    assert!(link.chars().count() + LINK_ADDRESS_ROOM <= MAX_LINK_CHARS);
    let d = crate::link::decode(&link);
    assert!(d.scenario.gguf.is_none());
    assert!(d
        .notices
        .contains(&Notice::GgufLeftOut("model.gguf".into())));
}
