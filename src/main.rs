//! Entry point of the calculator page: mounts the app, nothing else (the
//! tools page has its own, `src/bin/vramfit-tools.rs`).

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(vramfit_web::App);
    vramfit_web::pwa::register_service_worker(vramfit_web::pwa::SERVICE_WORKER);
}
