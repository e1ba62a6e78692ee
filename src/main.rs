//! vram-budget in the browser: a panic hook that shows a banner, then the app.

mod app;
#[cfg(feature = "bench")]
mod bench;
mod chart;
mod components;
mod dom;
mod i18n;
mod later;
mod local_module;
mod page_js;
mod reactive;
mod readers;
mod state;
mod warm;
mod zh;

fn main() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        app::show_panic_banner();
    }));
    app::start();
}
