"""The run reply's thermal records (run reply.thermal): the snapshots before and after the run, what each probe
reports inside one, and the --cooldown wait. messages.py re-exports every one (host and agent import them from
there).

Owns: ThermalReply, ThermalSnapshot, CooldownWait and the probes' records (ThermalZone, CpuFreq, GpuFreq,
FanState, NvpModel, JetsonClocks, RpiState with RpiThrottled, NvmlGpu): each field's type and default, declared
once. Their wire shape is what thermal.snapshot() and thermal.wait_cool() build (absent values absent).
Does not own: reading the board (thermal.py, probes/nvml.py), the record machinery (record.py), the other
messages (messages.py).

Python >= 3.6, standard library only: plain classes with __slots__ (no dataclasses).
"""

from .record import Field, Record

_NUM = (int, float)


class ThermalZone(Record):
    """One thermal zone (thermal.thermal_zones, by zone directory): its type, °C, and why it is not trusted (a
    sensor with a fixed value, or an offline one) when it is not. Absent values are absent on the wire."""

    NAME = "run reply.thermal.snapshot.zones{}"
    OMIT_NONE = True
    FIELDS = (Field("type", str), Field("temp_c", _NUM), Field("ignored", str, None))


class CpuFreq(Record):
    """One CPU's cpufreq (thermal.cpufreq, by cpuN): scaling governor, current / min / max scaling frequency and
    cpuinfo_max_freq, kHz; what the CPU does not expose is absent."""

    NAME = "run reply.thermal.snapshot.cpufreq{}"
    OMIT_NONE = True
    FIELDS = (Field("governor", str, None), Field("cur_khz", int, None), Field("min_khz", int, None),
              Field("max_khz", int, None), Field("hw_max_khz", int, None))


class GpuFreq(Record):
    """A Jetson GPU's devfreq (thermal.gpu_devfreq): the devfreq device and its current / min / max Hz."""

    NAME = "run reply.thermal.snapshot.gpu_freq"
    OMIT_NONE = True
    FIELDS = (Field("name", str), Field("cur_hz", int, None), Field("min_hz", int, None), Field("max_hz", int, None))


class FanState(Record):
    """The fan (thermal.fan): pwm-fan's target and current PWM, or a pwmfan hwmon's pwm1 and rpm."""

    NAME = "run reply.thermal.snapshot.fan"
    OMIT_NONE = True
    FIELDS = (Field("target_pwm", int, None), Field("cur_pwm", int, None), Field("pwm1", int, None),
              Field("rpm", int, None))


class NvpModel(Record):
    """Jetson's power mode (`nvpmodel -q`, thermal.parse_nvpmodel_q): its name and id (None: not printed)."""

    NAME = "run reply.thermal.snapshot.nvpmodel"
    FIELDS = (Field("name", str, None), Field("id", int, None))


class JetsonClocks(Record):
    """Whether jetson_clocks is on, inferred (never run): every CPU's and the GPU's min == max; `how` says so."""

    NAME = "run reply.thermal.snapshot.jetson_clocks"
    FIELDS = (Field("locked", bool), Field("how", str))


class RpiThrottled(Record):
    """`vcgencmd get_throttled` decoded (thermal.decode_throttled): the bits, as hex, the flags set now and the
    sticky ones that have occurred since boot."""

    NAME = "run reply.thermal.snapshot.rpi.throttled"
    FIELDS = (Field("bits", int), Field("raw", str), Field("now", list, of=str), Field("has_occurred", list, of=str))


class RpiState(Record):
    """A Raspberry Pi's own view (thermal.rpi_state, vcgencmd): get_throttled, measure_temp °C, the ARM clock Hz."""

    NAME = "run reply.thermal.snapshot.rpi"
    OMIT_NONE = True
    FIELDS = (Field("throttled", dict, None, record=RpiThrottled), Field("temp_c", _NUM, None),
              Field("arm_hz", int, None))


class NvmlGpu(Record):
    """One NVIDIA GPU in a snapshot (probes/nvml.device_state): its index, name, °C, SM and memory clocks (MHz),
    board power (W) and the clock event reasons (bits and names); what the GPU does not answer is absent."""

    NAME = "run reply.thermal.snapshot.nvml[]"
    OMIT_NONE = True
    FIELDS = (Field("index", int), Field("name", str, None), Field("temp_c", _NUM, None), Field("sm_mhz", int, None),
              Field("mem_mhz", int, None), Field("power_w", _NUM, None), Field("clock_reasons_bits", int, None),
              Field("clock_reasons", list, None, of=str))


class ThermalSnapshot(Record):
    """thermal.snapshot: the board's thermal and clock state at one moment: thermal zones and cpufreq by name,
    GPU devfreq, the EMC clock, fan, nvpmodel, inferred jetson_clocks, the Pi's own state and NVML GPUs, each
    a record of what its probe reports (same wire shape as before they were records), and the hottest °C."""

    NAME = "run reply.thermal.snapshot"
    FIELDS = (Field("t_ns", int, None), Field("unix_time", _NUM, None),
              Field("zones", dict, None, record=ThermalZone, keyed=True),
              Field("cpufreq", dict, None, record=CpuFreq, keyed=True), Field("governors", list, None, of=str),
              Field("gpu_freq", dict, None, record=GpuFreq), Field("emc_hz", int, None),
              Field("fan", dict, None, record=FanState), Field("nvpmodel", dict, None, record=NvpModel),
              Field("jetson_clocks", dict, None, record=JetsonClocks), Field("rpi", dict, None, record=RpiState),
              Field("nvml", list, None, record=NvmlGpu, many=True), Field("max_temp_c", _NUM, None))


class CooldownWait(Record):
    """thermal.wait_cool: whether the board got below `below_c` (None: no readable sensor), from/to °C, how long."""

    NAME = "run reply.thermal.cooldown"
    FIELDS = (Field("cooled", bool, None), Field("start_c", _NUM, None), Field("end_c", _NUM, None),
              Field("waited_s", _NUM, 0.0), Field("below_c", _NUM, None))


class ThermalReply(Record):
    """Snapshots before and after the run and the --cooldown wait when there was one."""

    NAME = "run reply.thermal"
    FIELDS = (Field("before", dict, None, record=ThermalSnapshot), Field("after", dict, None, record=ThermalSnapshot),
              Field("cooldown", dict, None, record=CooldownWait))
