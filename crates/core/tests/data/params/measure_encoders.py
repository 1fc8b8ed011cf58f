"""Parameter counts of the BERT-layer encoder families the importer reads
(RoBERTa and its relatives, DistilBERT, ELECTRA, MPNet, LayoutLM, ERNIE,
Megatron-BERT) and ModernBERT, on each config class's defaults and on varied small configs
that flip the keys the importer reads.

For every (model_type, overrides, head) below: build
`CONFIG_MAPPING[model_type](**overrides)`, write it to
../configs/encoders/<model_type>__<n>.json with the `architectures` entry of
the class it is counted as, build that class on the meta device
(`AutoModel`, the bare encoder, or `AutoModelForSequenceClassification` with
`num_labels` labels) and record `model.num_parameters()` in
hf_encoders.csv. Run with HF_HUB_OFFLINE=1; nothing is downloaded:

    HF_HUB_OFFLINE=1 python measure_encoders.py
"""
import csv, json, os, warnings
import torch, transformers
from transformers import AutoModel, AutoModelForSequenceClassification, CONFIG_MAPPING

warnings.filterwarnings("ignore")
here = os.path.dirname(os.path.abspath(__file__))
out_dir = os.path.join(here, "..", "configs", "encoders")
os.makedirs(out_dir, exist_ok=True)
SMALL = dict(vocab_size=1000, hidden_size=64, num_hidden_layers=3, num_attention_heads=4,
             intermediate_size=96, max_position_embeddings=130, pad_token_id=1)
SEQ = "seq"  # counted as the sequence-classification class
VARIANTS = {
    "roberta": [({}, None), (SMALL, None), (dict(SMALL, type_vocab_size=1), SEQ), (dict(SMALL, num_labels=5), SEQ)],
    "xlm-roberta": [({}, None), (dict(SMALL, type_vocab_size=1), None), ({}, SEQ)],
    "camembert": [({}, None), (dict(SMALL, type_vocab_size=1, num_labels=7), SEQ)],
    "data2vec-text": [({}, None), (SMALL, SEQ)],
    "ernie": [({}, None), (dict(SMALL, use_task_id=True, task_type_vocab_size=5), None),
              (dict(SMALL, use_task_id=True), SEQ)],
    "roberta-prelayernorm": [({}, None), (SMALL, SEQ)],
    "xlm-roberta-xl": [({}, None), (dict(SMALL, type_vocab_size=3), None), (SMALL, SEQ)],
    "megatron-bert": [({}, None), (SMALL, SEQ)],
    "distilbert": [({}, None), ({}, SEQ),
                   (dict(vocab_size=900, dim=48, n_layers=2, n_heads=4, hidden_dim=80, max_position_embeddings=64), None),
                   (dict(vocab_size=900, dim=48, n_layers=2, n_heads=4, hidden_dim=80, max_position_embeddings=64,
                         num_labels=4), SEQ)],
    "electra": [({}, None), ({}, SEQ), (dict(SMALL, embedding_size=32), None), (dict(SMALL, embedding_size=64), SEQ),
                (dict(SMALL, embedding_size=48, type_vocab_size=3, num_labels=3), SEQ)],
    "mpnet": [({}, None), ({}, SEQ), (dict(SMALL, relative_attention_num_buckets=16), None)],
    "layoutlm": [({}, None), (dict(SMALL, max_2d_position_embeddings=200), SEQ)],
    "bert": [(SMALL, None), (dict(SMALL, type_vocab_size=4, num_labels=6), SEQ)],
    "modernbert": [({}, None), ({}, SEQ),
                   (dict(SMALL, norm_bias=True, mlp_bias=True, attention_bias=True, classifier_bias=True), SEQ),
                   (dict(SMALL, num_hidden_layers=4, norm_bias=True), None),
                   (dict(SMALL, mlp_bias=True, num_labels=5), SEQ)],
}

rows = []
for model_type, variants in VARIANTS.items():
    for n, (overrides, head) in enumerate(variants):
        cfg = CONFIG_MAPPING[model_type](**overrides)
        cls = AutoModelForSequenceClassification if head == SEQ else AutoModel
        with torch.device("meta"):
            model = cls.from_config(cfg)
        d = cfg.to_dict()
        d["architectures"] = [type(model).__name__]
        name = f"encoders/{model_type}__{n}.json"
        with open(os.path.join(here, "..", "configs", name), "w") as f:
            json.dump(d, f, indent=1, sort_keys=True)
            f.write("\n")
        rows.append((name, type(model).__name__, model.num_parameters()))
        print(rows[-1])
with open(os.path.join(here, "hf_encoders.csv"), "w", newline="") as f:
    f.write(f"# transformers {transformers.__version__}, torch {torch.__version__}: measure_encoders.py\n")
    w = csv.writer(f)
    w.writerow(["config", "hf_class", "num_parameters"])
    w.writerows(rows)
