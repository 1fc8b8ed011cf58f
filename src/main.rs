//! Entry point of the web calculator: mounts the app, nothing else.

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(vramfit_web::App);
    vramfit_web::pwa::register_service_worker();
}
