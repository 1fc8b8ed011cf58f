//! Entry point of the tools page (`tools/`): the wizard, the OOM doctor and
//! the log reader, built as their own wasm so the calculator's first load
//! carries none of their code.

fn main() {
    console_error_panic_hook::set_once();
    vramfit_web::i18n::add_tool_texts();
    vramfit_web::importer::use_worker_at(vramfit_web::importer::WORKER_FROM_TOOLS);
    leptos::mount::mount_to_body(vramfit_web::ToolsApp);
    vramfit_web::pwa::register_service_worker(vramfit_web::pwa::SERVICE_WORKER_FROM_TOOLS);
}
