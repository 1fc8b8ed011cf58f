//! Entry point of the calculator page: mounts the app, nothing else (the
//! tools page has its own, `src/bin/vramfit-tools.rs`). With
//! `fetched-catalog` (the site's build) the model catalog comes first, from
//! `models.links` beside the page (precached for offline use), and with
//! `fetched-locale` the Chinese texts (`zh.ftl`) when the page opens in
//! Chinese.

fn main() {
    console_error_panic_hook::set_once();
    #[cfg(feature = "fetched-catalog")]
    wasm_bindgen_futures::spawn_local(async {
        let text = vramfit_web::hub_fetch::site_file("models.links").await;
        vramfit_core::catalog::install_links(text.as_deref().unwrap_or(""));
        #[cfg(feature = "fetched-locale")]
        if vramfit_web::i18n::opening_lang() == vramfit_web::i18n::Lang::Zh {
            if let Some(texts) = vramfit_web::hub_fetch::site_file("zh.ftl").await {
                vramfit_web::i18n::install_chinese(&texts);
            }
        }
        start();
    });
    #[cfg(not(feature = "fetched-catalog"))]
    start();
}

fn start() {
    leptos::mount::mount_to_body(vramfit_web::App);
    vramfit_web::pwa::register_service_worker(vramfit_web::pwa::SERVICE_WORKER);
}
