"""A sweep that predicts before it measures (`edgeprof sweep FILE --predict-first`).

Owns: for each cell to run, finding its device's calibration table of exactly the cell's configuration (runtime,
precision, threads: predict/service.table_for), predicting the cell from the model's graph on this host (no device
is touched), storing each prediction with the sweep's id (store/predictions.py), and the predicted ranking of the
boards per model, runtime, precision and batch — all before the first cell is measured (with --queue, on the
controller that submits the sweep, from its tables, before the cells are queued). A cell whose device has no
such table is said once per device and configuration ("no calibration table for DEVICE (runtime x, threads n):
edgeprof calibrate --device DEVICE ...") and measured anyway; a cell that cannot be predicted (a model predict
refuses, a cell whose runtime_options differ from the table's graph level and CPU defaults) is said in one line
and measured anyway. Only single-stream cells are predicted (a prediction is a single-stream p50); skip rows are
not.
Does not own: the prediction (predict/), running the cells (scheduler.py), the report (report/predicted.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .. import vocab
from ..errors import UserError
from ..records.prediction import StoredPrediction
from ..store import Store
from .cell import Cell


@dataclass
class PredictFirst:
    predicted: list[tuple[Cell, StoredPrediction]] = field(default_factory=list)
    no_table: list[str] = field(default_factory=list)  # the lines said, once per device and configuration
    failed: list[str] = field(default_factory=list)
    not_predicted: int = 0  # cells left unpredicted for another reason (skip rows, other scenarios)

    def ranking_lines(self) -> list[str]:
        """Per model · runtime precision · batch: the boards from fastest to slowest predicted p50."""
        groups: dict[str, list[tuple[Cell, StoredPrediction]]] = {}
        for c, p in self.predicted:
            groups.setdefault(f"{c.model_label} · {c.runtime} {c.precision} · b{c.batch}", []).append((c, p))
        lines = []
        for g, members in groups.items():
            members.sort(key=lambda m: m[1].p50_ms)
            lines.append(f"predicted ranking · {g}:")
            lines += [f"  {i}. {c.device} (threads {c.threads}): {p.p50_ms:.3f} ms "
                      f"[{p.low_ms:.3f}, {p.high_ms:.3f}] ({100 * p.level:.0f} %), covered "
                      f"{100 * p.covered_ops:.0f} % of kernels" for i, (c, p) in enumerate(members, 1)]
        return lines


def predict_cells(store: Store, sweep_id: str, cells: list[Cell], say: Callable[[str], None]) -> PredictFirst:
    from ..predict.record import stored_prediction
    from ..predict.service import check_given_precision, model_graph, predict, table_for
    from ..predict.table import load_table
    from ..store.predictions import save_prediction

    done = PredictFirst()
    said: set[tuple[str, str, str, int | None]] = set()
    for cell in cells:
        if cell.skip or cell.scenario != vocab.SINGLE_STREAM:
            done.not_predicted += 1
            continue
        path = table_for(cell.device, runtime=cell.runtime, precision=cell.precision, threads=cell.threads)
        if path is None:
            what = (cell.device, cell.runtime, cell.precision, cell.threads)
            if what not in said:
                said.add(what)
                threads = "auto" if cell.threads is None else str(cell.threads)
                line = (f"no calibration table for {cell.device} (runtime {cell.runtime}, {cell.precision}, threads "
                        f"{threads}): edgeprof calibrate --device {cell.device}"
                        + (f" --threads {cell.threads}" if cell.threads is not None else " --threads N (and give "
                           "the sweep `threads: [N]`: a table is measured with one thread count)")
                        + (" (tables are built for onnxruntime fp32 and int8 and LiteRT fp32 only)"
                           if cell.runtime not in ("onnxruntime", "tflite") or cell.precision not in ("fp32", "int8")
                           or (cell.runtime == "tflite" and cell.precision != "fp32") else "")
                        + "; measuring it anyway")
                done.no_table.append(line)
                say(line)
            continue
        try:
            table = load_table(path)
            opts = dict(cell.setting("runtime_options") or {})
            if table.key.runtime == "tflite":  # a LiteRT table: XNNPACK at its defaults, as deploy runs a .tflite
                if opts:
                    raise UserError(f"the cell sets runtime_options {', '.join(sorted(opts))}; the table {path} was "
                                    "measured with LiteRT's XNNPACK defaults")
            else:
                level = str(opts.pop("graph_optimization_level", "all"))
                if level != table.key.graph_level or opts:
                    why = (f"the cell sets runtime_options {', '.join(sorted(opts))}" if opts else
                           f"the cell runs at graph level {level}")
                    raise UserError(f"{why}; the table {path} was measured with onnxruntime's CPU defaults at graph "
                                    f"level {table.key.graph_level}")
            run = cell.run_spec()  # what the cell feeds: the host run reads the model on the same inputs
            graph = model_graph(cell.model, batch=cell.batch, input_shapes=cell.inputs, level=table.key.graph_level,
                                precision=cell.precision, threads=cell.threads, input_values=run.input_values,
                                input_ranges=run.input_ranges, input_data=run.input_data,
                                calibration=run.calibration)
            # a file already quantised (or with float16 weights) as edgeprof predict reads it: one rule for both
            note = check_given_precision(cell.model, graph.precision, table.key.precision, table.key.runtime)
            p = predict(graph.kernels, table, batch=cell.batch, threads=cell.threads, where=f"table {path}",
                        runtime=table.key.runtime, precision=table.key.precision)
            if note:  # float16 weights LiteRT runs in float32: the fp32 table, saying so (as edgeprof predict)
                p.warnings.append(note)
            if graph.denormals:  # activations holding denormal floats on deploy's inputs (as edgeprof predict)
                p.warnings.append(graph.denormals)
        except UserError as e:
            line = f"could not predict {cell.cell_id}: {e.one_line()}; measuring it anyway"
            done.failed.append(line)
            say(line)
            continue
        rec = save_prediction(store, stored_prediction(cell.model, graph, table, p, batch=cell.batch,
                                                       table_path=str(path), sweep_id=sweep_id))
        done.predicted.append((cell, rec))
    return done
