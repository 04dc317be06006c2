/* A stand-in libnvidia-ml.so.1 for the REAL nvidia-ml-py (pynvml) of the x86-t4 stack: one GPU, the calling
 * process using 512 MiB, clock reasons GpuIdle|SwThermalSlowdown. Built twice by test_nvml_generations.py:
 * -DDRIVER_R535 exports what an R535 driver has; without it, like an R470 driver, it lacks the symbols added
 * later (nvmlDeviceGetCurrentClocksEventReasons in R535, nvmlDeviceGetComputeRunningProcesses_v3 in R510), so
 * pynvml's _nvmlGetFunctionPointer raises NVMLError_FunctionNotFound for them, as on a real old driver. */
#include <string.h>
#include <unistd.h>

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} processInfo;  /* nvmlProcessInfo_v2_t; pynvml reads _v3 results with the same layout */

#define SUCCESS 0
#define INSUFFICIENT_SIZE 7

int nvmlInitWithFlags(unsigned int flags) { (void)flags; return SUCCESS; }
int nvmlInit_v2(void) { return SUCCESS; }
int nvmlShutdown(void) { return SUCCESS; }
const char *nvmlErrorString(int result) { (void)result; return "fake NVML error"; }
int nvmlDeviceGetCount_v2(unsigned int *count) { *count = 1; return SUCCESS; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **handle) {
    (void)index; *handle = (void *)0x1; return SUCCESS;
}
int nvmlDeviceGetCurrentClocksThrottleReasons(void *handle, unsigned long long *reasons) {
    (void)handle; *reasons = 0x21ULL; return SUCCESS;
}

static int processes(unsigned int *count, processInfo *infos) {
    if (infos == NULL || *count < 1) { *count = 1; return INSUFFICIENT_SIZE; }
    memset(infos, 0, sizeof(*infos));
    infos[0].pid = (unsigned int)getpid();
    infos[0].usedGpuMemory = 512ULL << 20;
    *count = 1;
    return SUCCESS;
}

int nvmlDeviceGetComputeRunningProcesses_v2(void *handle, unsigned int *count, processInfo *infos) {
    (void)handle; return processes(count, infos);
}

#ifdef DRIVER_R535
int nvmlDeviceGetCurrentClocksEventReasons(void *handle, unsigned long long *reasons) {
    (void)handle; *reasons = 0x21ULL; return SUCCESS;
}
int nvmlDeviceGetComputeRunningProcesses_v3(void *handle, unsigned int *count, processInfo *infos) {
    (void)handle; return processes(count, infos);
}
#endif
