//! vram-budget in the browser: a panic hook that shows a banner, then the Leptos app.

mod app;
#[cfg(feature = "bench")]
mod bench;
mod chart;
mod components;
mod i18n;
mod local_module;
mod modules;
mod readers;
mod state;
mod zh;

fn main() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        app::show_panic_banner();
    }));
    leptos::mount::mount_to_body(app::App);
}
