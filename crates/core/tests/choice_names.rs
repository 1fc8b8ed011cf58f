//! Every enum value's link key is also what a scenario file calls it (its
//! serde name), except the aliases the enum lists: one parser
//! (`Choice::parse`) reads both without serde machinery in the web app.

use vramfit_core::model::{Arch, MlpKind, NormKind, QkNorm, RecurrentKind};
use vramfit_core::precision::{Dtype, TrainingPrecision, WeightFormat};
use vramfit_core::scenario::{
    Attention, Checkpointing, Engine, Framework, LoraTarget, Method, Offload, Optimizer, Strategy,
    TaskKind,
};
use vramfit_core::url::Choice;
use vramfit_core::wizard::{Goal, Priority};

fn check<T: Choice + serde::Serialize + std::fmt::Debug>(mismatches: &mut Vec<String>) {
    for &value in T::ALL {
        let serde_name = serde_json::to_value(value).expect("serializes");
        let serde_name = serde_name.as_str().unwrap_or_default().to_owned();
        if serde_name != value.key() {
            let read = T::parse(&serde_name);
            if read != Some(value) {
                mismatches.push(format!("{value:?}: serde {serde_name} key {}", value.key()));
            }
        }
    }
}

#[test]
fn every_serde_name_parses_to_its_value() {
    let mut m = Vec::new();
    check::<TaskKind>(&mut m);
    check::<Method>(&mut m);
    check::<LoraTarget>(&mut m);
    check::<Optimizer>(&mut m);
    check::<Checkpointing>(&mut m);
    check::<Attention>(&mut m);
    check::<Framework>(&mut m);
    check::<Engine>(&mut m);
    check::<Strategy>(&mut m);
    check::<Offload>(&mut m);
    check::<Dtype>(&mut m);
    check::<TrainingPrecision>(&mut m);
    check::<WeightFormat>(&mut m);
    check::<MlpKind>(&mut m);
    check::<NormKind>(&mut m);
    check::<Arch>(&mut m);
    check::<QkNorm>(&mut m);
    check::<RecurrentKind>(&mut m);
    check::<Goal>(&mut m);
    check::<Priority>(&mut m);
    assert!(m.is_empty(), "{m:#?}");
}
