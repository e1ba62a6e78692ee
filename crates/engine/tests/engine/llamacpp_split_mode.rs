//! llama.cpp's `--split-mode` over several GPUs as a setting (`sm`): by layer, each GPU its share
//! (and `--tensor-split` moves it); `none`, everything on the main GPU and the rest unused,
//! which the command says with `-sm none`.

use vram_engine::{
    llamacpp::launch_commands, llamacpp::plan_llama, llamacpp::LlamaDevice, llamacpp::TensorShares,
    local::local_machine, local::local_settings, scenario::SplitMode, Gpu, Job, Scenario,
    WeightFormat,
};

fn two_gpus(split_mode: SplitMode) -> Scenario {
    Scenario {
        job: Job::Local,
        weights: WeightFormat::GgufQ4KM,
        gpu: Gpu::Rtx3090,
        gpus: 2,
        split_mode,
        ..Scenario::default()
    }
}

fn plan(s: &Scenario) -> vram_engine::llamacpp::LlamaPlan {
    let header = vram_engine::local::local_header(s).unwrap();
    plan_llama(&header, &local_settings(s), local_machine(s).backend()).unwrap()
}

#[test]
fn none_puts_every_offloaded_layer_on_the_main_gpu_as_one_gpu_would() {
    let none = plan(&two_gpus(SplitMode::Single));
    let one = plan(&Scenario {
        gpus: 1,
        ..two_gpus(SplitMode::Layer)
    });
    assert_eq!(none.devices, one.devices);
    assert!(none.device(LlamaDevice::Gpu(1)).is_none());
    let s = local_settings(&two_gpus(SplitMode::Single));
    let line = launch_commands(&s, none.shape.n_layer).llama_server;
    assert!(line.contains(&("-sm", "none".to_string())), "{line:?}");
}

#[test]
fn by_layer_each_gpu_holds_its_share_and_none_ignores_the_split() {
    let layer = plan(&two_gpus(SplitMode::Layer));
    let (a, b) = (
        layer.device(LlamaDevice::Gpu(0)).unwrap(),
        layer.device(LlamaDevice::Gpu(1)).unwrap(),
    );
    assert!(a.layers > 0 && b.layers > 0);
    assert_eq!(a.layers + b.layers, layer.shape.n_layer);
    let uneven = Scenario {
        split_mode: SplitMode::Single,
        tensor_split: TensorShares::parse("3,1").unwrap(),
        ..two_gpus(SplitMode::Single)
    };
    assert_eq!(
        plan(&uneven).devices,
        plan(&two_gpus(SplitMode::Single)).devices
    );
}
