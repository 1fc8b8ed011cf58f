"""Video tokens of Video-LLaVA (`video_llava`), measured by running transformers'
VideoLlavaProcessor on synthetic videos (the content does not change the counts).

    HF_HUB_OFFLINE=1 /work/venv/bin/python measure_video_llava.py > video_llava_tokens.jsonl

The processor keeps every frame given (`do_sample_frames=False`), resizes and crops
each to the tower's square (`crop_size`, 224 by default) and writes `frames × (patches + 1)`
`<video>` placeholders: the class token is kept for video whatever the select strategy.
A word-level tokenizer stands in for the checkpoint's (nothing downloaded); rows also vary
the tower's square (crop 336) and patch (16). Needs torch, torchvision and transformers (CPU).
"""
import json
import warnings

import numpy as np
import torch
import torchvision
import transformers
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast, VideoLlavaImageProcessor, VideoLlavaProcessor
from transformers.models.video_llava.video_processing_video_llava import VideoLlavaVideoProcessor

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()

VOCAB = {"<unk>": 0, "<pad>": 1, "<image>": 2, "<video>": 3, "hi": 4}


def tokenizer():
    tk = Tokenizer(models.WordLevel(VOCAB, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", pad_token="<pad>")
    tok.add_special_tokens({"additional_special_tokens": ["<image>", "<video>"]})
    return tok


def main():
    tok = tokenizer()
    versions = (f"transformers {transformers.__version__}, torch {torch.__version__}, "
                f"torchvision {torchvision.__version__}")
    for crop, patch in ((224, 14), (336, 14), (224, 16)):
        size = {"shortest_edge": crop}
        crop_size = {"height": crop, "width": crop}
        proc = VideoLlavaProcessor(
            image_processor=VideoLlavaImageProcessor(size=size, crop_size=crop_size),
            video_processor=VideoLlavaVideoProcessor(size=size, crop_size=crop_size),
            tokenizer=tok, patch_size=patch)
        for (w, h) in ((640, 480), (1920, 1080), (224, 224), (100, 60), (720, 1280)):
            for frames in (1, 4, 8, 16):
                video = np.zeros((frames, h, w, 3), dtype=np.uint8)
                out = proc(text=["hi <video> hi"], videos=[video], return_tensors="pt")
                placeholders = int((out["input_ids"] == VOCAB["<video>"]).sum())
                print(json.dumps({"crop": crop, "patch": patch, "width": w, "height": h,
                                  "frames": frames,
                                  "pixel_values_videos": list(out["pixel_values_videos"].shape),
                                  "video_tokens": placeholders, "versions": versions}))


if __name__ == "__main__":
    main()
