"""Video tokens of the Qwen-VL processors, measured by running transformers' own
video processors on synthetic videos (zeros: the content does not change the grid).

    /work/venv/bin/python measure_video_tokens.py > video_tokens.jsonl

Qwen2VLVideoProcessor serves qwen2_vl and qwen2_5_vl; Qwen3VLVideoProcessor serves
qwen3_vl, qwen3_5 and qwen3_5_moe (transformers' video_processing_auto). Both run with
their defaults (no `cap_pixels_per_frame`, as the processors default today); the Qwen3 one
is given `VideoMetadata(fps=...)` when a row names the video's frame rate, else none (it then
assumes 24 fps). Needs torch, torchvision and transformers (CPU).
"""
import json
import sys
import warnings

import numpy as np
import torch
import torchvision
import transformers
from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor
from transformers.models.qwen3_vl.video_processing_qwen3_vl import Qwen3VLVideoProcessor
from transformers.video_utils import VideoMetadata

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()

SIZES = [(640, 480), (480, 640), (1280, 720), (1920, 1080), (336, 336), (224, 224), (100, 60),
         (3000, 40), (853, 480), (1024, 1024), (720, 1280), (56, 56), (2560, 1440), (800, 600)]
FRAMES = [1, 2, 3, 4, 7, 8, 16, 31, 48, 64]
FPS = [None, 24.0, 30.0, 2.0, 12.5]


def grid(processor, w, h, frames, fps):
    video = np.zeros((frames, h, w, 3), dtype=np.uint8)
    kwargs = {}
    if isinstance(processor, Qwen3VLVideoProcessor) and fps is not None:
        kwargs["video_metadata"] = [VideoMetadata(total_num_frames=frames, fps=fps, duration=frames / fps)]
    try:
        out = processor(videos=[video], return_tensors="pt", **kwargs)
    except Exception as e:  # the processor refuses: the row records it
        return {"error": f"{type(e).__name__}: {str(e)[:120]}"}
    t, gh, gw = out["video_grid_thw"][0].tolist()
    return {"grid_t": t, "grid_h": gh, "grid_w": gw}


def main():
    rows = 0
    for name, processor in (("qwen2_vl", Qwen2VLVideoProcessor()), ("qwen3_vl", Qwen3VLVideoProcessor())):
        for i, (w, h) in enumerate(SIZES):
            for j, frames in enumerate(FRAMES):
                # every size with a few frame counts, every frame count with a few sizes
                if (i + j) % 3:
                    continue
                for fps in (FPS if name == "qwen3_vl" else [None]):
                    if w * h * frames > 1920 * 1080 * 16:
                        continue
                    row = {"processor": name, "width": w, "height": h, "frames": frames, "fps": fps,
                           **grid(processor, w, h, frames, fps),
                           "versions": f"transformers {transformers.__version__}, torch {torch.__version__}, "
                                       f"torchvision {torchvision.__version__}"}
                    print(json.dumps(row))
                    rows += 1
    print(f"{rows} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
