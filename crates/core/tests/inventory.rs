//! The GPU inventory `vramfit gpus --json` prints: printed, read back, and
//! turned into the card and count a scenario names.

use vramfit_core::inventory::{Card, DeviceInfo, GpuProcess, Inventory};
use vramfit_core::scenario::Scenario;

fn device(index: u32, name: &str, total: u64) -> DeviceInfo {
    DeviceInfo {
        index: Some(index),
        name: Some(name.into()),
        memory_total_bytes: Some(total),
        ..DeviceInfo::default()
    }
}

const A100_40GB: u64 = 42_949_672_960;

#[test]
fn printed_inventory_reads_back_the_same() {
    let mut first = device(0, "NVIDIA A100-SXM4-40GB", A100_40GB);
    first.memory_used_bytes = Some(1 << 30);
    first.mig_enabled = Some(false);
    first.processes = Some(vec![GpuProcess {
        pid: 4242,
        name: None,
        used_bytes: Some(1 << 30),
    }]);
    let inventory = Inventory::new(vec![first, device(1, "Mystery GPU", 1 << 30)]);
    assert_eq!(
        inventory.gpus[0].catalog_id.as_deref(),
        Some("a100-sxm4-40gb")
    );
    assert_eq!(inventory.gpus[1].catalog_id, None);
    let printed = serde_json::to_string_pretty(&inventory).expect("prints");
    // The shape the CLI has always printed: an array of flat devices.
    let value: serde_json::Value = serde_json::from_str(&printed).expect("JSON");
    assert_eq!(value[0]["catalog_id"], "a100-sxm4-40gb");
    assert_eq!(value[0]["memory_total_bytes"], A100_40GB);
    assert!(value[1]["catalog_id"].is_null());
    assert_eq!(Inventory::parse(&printed), Ok(inventory));
}

#[test]
fn malformed_pastes_name_the_field() {
    let field = |text: &str| Inventory::parse(text).map_err(|e| e.field);
    assert_eq!(field("not json"), Err("gpus".into()));
    assert_eq!(field(r#"{"a":1}"#), Err("gpus".into()));
    assert_eq!(field("[]"), Err("gpus".into()));
    assert_eq!(field("[1]"), Err("gpus[0]".into()));
    assert_eq!(
        field(r#"[{"name":"x"},{"memory_total_bytes":"80 GB"}]"#),
        Err("gpus[1].memory_total_bytes".into())
    );
    assert_eq!(
        field(r#"[{"processes":[{"pid":-1}]}]"#),
        Err("gpus[0].processes[0].pid".into())
    );
    assert_eq!(
        field(r#"[{"catalog_id":7}]"#),
        Err("gpus[0].catalog_id".into())
    );
    let error = Inventory::parse(r#"[{"memory_total_bytes":"80 GB"}]"#).expect_err("a string");
    assert!(error.message.contains("expected u64"), "{}", error.message);
}

#[test]
fn the_machine_is_its_most_common_catalog_card() {
    // Two 40 GB A100s and a 4090: the A100s, counted 2.
    let pasted = r#"[
        {"index":0,"name":"NVIDIA A100-SXM4-40GB","memory_total_bytes":42949672960,"catalog_id":"a100-sxm4-40gb"},
        {"index":1,"name":"NVIDIA GeForce RTX 4090","memory_total_bytes":25757220864,"catalog_id":"rtx-4090"},
        {"index":2,"name":"NVIDIA A100-SXM4-40GB","memory_total_bytes":42949672960,"catalog_id":"a100-sxm4-40gb"}]"#;
    let machine = Inventory::parse(pasted)
        .and_then(|i| i.machine_gpus())
        .expect("a machine");
    assert_eq!(machine.card, Card::Catalog("a100-sxm4-40gb".into()));
    assert_eq!(machine.count, 2);
    assert_eq!(machine.name, "NVIDIA A100-SXM4-40GB");
    let mut scenario = Scenario::default();
    scenario.gpu.memory_bytes = Some(1);
    machine.apply(&mut scenario);
    assert_eq!(scenario.gpu.name.as_deref(), Some("a100-sxm4-40gb"));
    assert_eq!(scenario.gpu.memory_bytes, None);
    assert_eq!(scenario.parallel.gpus, 2);
}

#[test]
fn ties_go_to_the_card_listed_first_and_names_find_the_catalog() {
    // One 4090 then one A100, no catalog ids (an older paste): the 4090.
    let inventory = Inventory::parse(
        r#"[{"name":"NVIDIA GeForce RTX 4090"},{"name":"NVIDIA A100-SXM4-40GB"}]"#,
    )
    .expect("parses");
    let machine = inventory.machine_gpus().expect("a machine");
    assert_eq!(
        (machine.card, machine.count),
        (Card::Catalog("rtx-4090".into()), 1)
    );
}

#[test]
fn cards_the_catalog_lacks_are_named_by_capacity() {
    let inventory = Inventory::new(vec![
        DeviceInfo {
            name: Some("Mystery GPU".into()),
            ..DeviceInfo::default()
        },
        device(1, "Mystery GPU", 1 << 34),
    ]);
    let machine = inventory.machine_gpus().expect("a machine");
    assert_eq!(
        (&machine.card, machine.count),
        (&Card::Capacity(1 << 34), 2)
    );
    let mut scenario = Scenario::default();
    machine.apply(&mut scenario);
    assert_eq!(
        (scenario.gpu.name, scenario.gpu.memory_bytes),
        (None, Some(1 << 34))
    );
    let nothing = Inventory::parse(r#"[{"name":"Mystery GPU"}]"#).expect("parses");
    assert_eq!(
        nothing.machine_gpus().map_err(|e| e.field),
        Err("gpus".into())
    );
}
