// H100 microbenchmarks for Fleet's Hopper backend.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o microbench microbench.cu
// Run:   ./microbench out.json
//
// Measures, each section independent (a failing section records its error and the rest run):
//   clock        SM clock from clock64 against %globaltimer (cycles -> ns)
//   gpcs         SM -> GPC groups, from which SMs share thread-block clusters (union-find)
//   occupancy    cudaOccupancyMaxActiveClusters for cluster sizes 1..16 (1 CTA per SM and small CTAs)
//   dsmemLatency remote shared-memory pointer chase by cluster size 2/4/8/16 and peer distance
//   dsmemBandwidth remote shared-memory reads/writes, one cluster and the whole GPU, by cluster size
//   l2           per-line L2 hit latency from every SM: near/far halves, SM sides, replication test
//   atomics      global atomics, acquire loads, fences, cluster barriers, contended atomics
//   launch       empty-kernel launch period in a stream and per node in a CUDA graph
//   collectives  ClusterReduce / ClusterGather over DSMEM vs through global memory
//   l2Sides      which L2 half each GPC is near to (first walk by the GPC, then a probe SM)
// Every timed figure is the median of repeated runs.
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      throw std::runtime_error(std::string(#x) + ": " + cudaGetErrorString(e_) + " @" +       \
                               std::to_string(__LINE__));                                      \
    }                                                                                          \
  } while (0)
#include <stdexcept>

// ---------------------------------------------------------------------------------------------
// tiny JSON writer
struct Json {
  std::string s;
  std::vector<bool> first{true};
  void sep() {
    if (!first.back()) s += ",";
    first.back() = false;
  }
  void key(const std::string& k) {
    sep();
    s += "\"" + k + "\":";
    first.back() = true;  // value follows: no comma
    pendingValue = true;
  }
  bool pendingValue = false;
  void pre() {
    if (pendingValue) {
      pendingValue = false;
      first.back() = false;
    } else
      sep();
  }
  void obj() { pre(); s += "{"; first.push_back(true); }
  void endObj() { s += "}"; first.pop_back(); }
  void arr() { pre(); s += "["; first.push_back(true); }
  void endArr() { s += "]"; first.pop_back(); }
  void num(double v) {
    pre();
    char b[64];
    if (v != v) snprintf(b, sizeof b, "null");
    else snprintf(b, sizeof b, "%.6g", v);
    s += b;
  }
  void str(const std::string& v) { pre(); s += "\"" + v + "\""; }
  void kv(const std::string& k, double v) { key(k); num(v); }
  void kvs(const std::string& k, const std::string& v) { key(k); str(v); }
};

static double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

static int g_sms = 0;
static double g_clockGHz = 1.98;

// ---------------------------------------------------------------------------------------------
// clock
__global__ void k_clock(unsigned long long* out, long long spin) {
  unsigned long long g0 = gtimer();
  long long c0 = clock64();
  while (clock64() - c0 < spin) {
  }
  long long c1 = clock64();
  unsigned long long g1 = gtimer();
  out[0] = (unsigned long long)(c1 - c0);
  out[1] = g1 - g0;
}

static double measureClock() {
  unsigned long long* d;
  CK(cudaMalloc(&d, 16));
  std::vector<double> ghz;
  for (int i = 0; i < 5; i++) {
    k_clock<<<1, 1>>>(d, 200000000LL);
    CK(cudaGetLastError());
    unsigned long long h[2];
    CK(cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost));
    ghz.push_back((double)h[0] / (double)h[1]);
  }
  CK(cudaFree(d));
  return median(ghz);
}

// ---------------------------------------------------------------------------------------------
// launch helper for clusters
template <typename... Args>
static cudaError_t launchCluster(void (*k)(Args...), int grid, int block, size_t smem, int cluster,
                                 cudaStream_t st, Args... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = st;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, args...);
}

template <typename K>
static void allowBig(K k, size_t smem) {
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
}

template <typename K>
static int maxClusters(K k, int block, size_t smem, int cluster) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(cluster * 256);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  int n = -1;
  cudaError_t e = cudaOccupancyMaxActiveClusters(&n, (void*)k, &cfg);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// gpcs + occupancy
__global__ void k_where(unsigned* out) {
  extern __shared__ char pad[];
  if (threadIdx.x == 0) {
    cg::cluster_group c = cg::this_cluster();
    out[blockIdx.x] = smid();
    pad[0] = 0;
    (void)c;
  }
  // hold the SM briefly so clusters of one launch are spread over the GPU
  long long t0 = clock64();
  while (clock64() - t0 < 20000) {
  }
}
__global__ void k_small() {}

static int findp(std::vector<int>& p, int x) { return p[x] == x ? x : p[x] = findp(p, p[x]); }

static std::vector<int> g_gpcOfSm;

static void sectionGpcs(Json& j) {
  const size_t big = 200 * 1024;  // one CTA per SM
  allowBig(k_where, big);
  CK(cudaFuncSetAttribute(k_small, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  j.key("occupancy");
  j.obj();
  j.kvs("note", "cudaOccupancyMaxActiveClusters; oneCtaPerSm: 200 KB dynamic shared memory per CTA; small: 128 threads, no shared memory");
  j.key("oneCtaPerSm");
  j.arr();
  std::vector<int> occ(17, 0);
  for (int n = 1; n <= 16; n++) {
    occ[n] = maxClusters(k_where, 128, big, n);
    j.num(occ[n]);
  }
  j.endArr();
  j.key("small");
  j.arr();
  for (int n = 1; n <= 16; n++) j.num(maxClusters(k_small, 128, 0, n));
  j.endArr();
  j.endObj();

  // union-find over SMs that share a cluster
  std::vector<int> p(g_sms);
  std::iota(p.begin(), p.end(), 0);
  unsigned* d;
  CK(cudaMalloc(&d, 4 * 4096));
  std::vector<unsigned> h(4096);  // 3 x max clusters x size <= 3 x 132 + slack
  int launches = 0;
  for (int n : {16, 8, 4, 2}) {
    int clusters = occ[n];
    if (clusters <= 0) continue;
    for (int rep = 0; rep < 30; rep++) {
      int grid = 3 * clusters * n;  // later waves land wherever CTAs finish first
      CK(launchCluster(k_where, grid, 128, big, n, 0, d));
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), d, 4 * grid, cudaMemcpyDeviceToHost));
      launches++;
      for (int c = 0; c < 3 * clusters; c++)
        for (int b = 1; b < n; b++) {
          int a = h[c * n], x = h[c * n + b];
          if (a < (unsigned)g_sms && x < (unsigned)g_sms) p[findp(p, a)] = findp(p, x);
        }
    }
  }
  CK(cudaFree(d));
  std::vector<std::vector<int>> groups;
  std::vector<int> rootIdx(g_sms, -1);
  g_gpcOfSm.assign(g_sms, -1);
  for (int s = 0; s < g_sms; s++) {
    int r = findp(p, s);
    if (rootIdx[r] < 0) {
      rootIdx[r] = (int)groups.size();
      groups.push_back({});
    }
    groups[rootIdx[r]].push_back(s);
    g_gpcOfSm[s] = rootIdx[r];
  }
  j.key("gpcs");
  j.obj();
  j.kvs("method", "SMs that ever share a thread-block cluster (sizes 16,8,4,2, 30 launches each, max active clusters per launch) are joined by union-find; each group is one GPC");
  j.kv("launches", launches);
  j.key("sizes");
  j.arr();
  std::vector<size_t> sizes;
  for (auto& g : groups) sizes.push_back(g.size());
  std::sort(sizes.rbegin(), sizes.rend());
  for (auto s : sizes) j.num((double)s);
  j.endArr();
  j.key("groups");
  j.arr();
  for (auto& g : groups) {
    j.arr();
    for (int s : g) j.num(s);
    j.endArr();
  }
  j.endArr();
  j.endObj();
}

// ---------------------------------------------------------------------------------------------
// DSMEM latency: rank 0 chases a pointer chain held in rank r's shared memory
__global__ void k_dsmem_lat(int hops, unsigned long long* out) {
  extern __shared__ unsigned chain[];
  cg::cluster_group cl = cg::this_cluster();
  const int M = 4096;
  unsigned rank = cl.block_rank();
  unsigned N = cl.num_blocks();
  for (int i = threadIdx.x; i < M; i += blockDim.x) chain[i] = (i * 1021 + 17) % M;  // stride-permutation, 128 B apart mostly
  cl.sync();
  if (rank == 0 && threadIdx.x == 0) {
    for (unsigned r = 0; r < N; r++) {
      unsigned* remote = cl.map_shared_rank(chain, r);
      unsigned jdx = 0;
      for (int i = 0; i < 64; i++) jdx = remote[jdx];  // warm
      long long t0 = clock64();
      for (int i = 0; i < hops; i++) jdx = remote[jdx];
      long long t1 = clock64();
      out[r] = (unsigned long long)(t1 - t0);
      out[32 + r] = jdx;
    }
    // local shared memory through a plain shared pointer
    unsigned jdx = 0;
    long long t0 = clock64();
    for (int i = 0; i < hops; i++) jdx = chain[jdx];
    long long t1 = clock64();
    out[64] = (unsigned long long)(t1 - t0);
    out[65] = jdx;
  }
  cl.sync();
}

static void sectionDsmemLatency(Json& j) {
  const size_t smem = 4096 * 4;
  allowBig(k_dsmem_lat, smem);
  unsigned long long* d;
  CK(cudaMalloc(&d, 8 * 128));
  const int hops = 4000;
  j.key("dsmemLatency");
  j.obj();
  j.kvs("method", "one thread of rank 0 chases a 4096-entry index chain in rank r's shared memory through cluster.map_shared_rank (generic loads), 4000 dependent hops, median of 7 launches; cycles per hop");
  j.key("byCluster");
  j.arr();
  for (int n : {2, 4, 8, 16}) {
    std::vector<std::vector<double>> per(n);
    std::vector<double> local;
    for (int rep = 0; rep < 7; rep++) {
      CK(launchCluster(k_dsmem_lat, n, 32, smem, n, 0, hops, d));
      CK(cudaDeviceSynchronize());
      unsigned long long h[66];
      CK(cudaMemcpy(h, d, 8 * 66, cudaMemcpyDeviceToHost));
      for (int r = 0; r < n; r++) per[r].push_back((double)h[r] / hops);
      local.push_back((double)h[64] / hops);
    }
    j.obj();
    j.kv("cluster", n);
    j.kv("localSharedCycles", median(local));
    j.kv("ownRankViaClusterCycles", median(per[0]));
    j.key("remoteCyclesByRank");
    j.arr();
    std::vector<double> rem;
    for (int r = 1; r < n; r++) {
      double m = median(per[r]);
      rem.push_back(m);
      j.num(m);
    }
    j.endArr();
    j.kv("remoteMeanCycles", std::accumulate(rem.begin(), rem.end(), 0.0) / rem.size());
    j.kv("remoteMaxCycles", *std::max_element(rem.begin(), rem.end()));
    j.endObj();
  }
  j.endArr();
  j.endObj();
  CK(cudaFree(d));
}

// ---------------------------------------------------------------------------------------------
// DSMEM bandwidth: every CTA streams its right neighbour's shared buffer (reads) or writes into it
template <bool WRITE>
__global__ void k_dsmem_bw(int iters, float* sink) {
  extern __shared__ float4 buf[];
  const int n4 = 2048;  // 32 KB
  cg::cluster_group cl = cg::this_cluster();
  unsigned rank = cl.block_rank();
  unsigned N = cl.num_blocks();
  for (int i = threadIdx.x; i < n4; i += blockDim.x) buf[i] = make_float4(i, rank, 1, 2);
  cl.sync();
  float4* remote = cl.map_shared_rank(buf, (rank + 1) % N);
  float4 acc = make_float4(0, 0, 0, 0);
  for (int it = 0; it < iters; it++) {
    asm volatile("" ::: "memory");  // no caching of remote values across passes
#pragma unroll 4
    for (int i0 = threadIdx.x; i0 < n4; i0 += blockDim.x) {
      const int i = (i0 + it * 32) & (n4 - 1);  // coalesced, a different address every pass
      if (WRITE) {
        remote[i] = make_float4(it, i, 0, 0);
      } else {
        float4 v = remote[i];
        acc.x += v.x;
        acc.y += v.y;
        acc.z += v.z;
        acc.w += v.w;
      }
    }
  }
  cl.sync();
  if (acc.x == -1.f) sink[blockIdx.x] = acc.y + acc.z + acc.w;
}

static std::vector<int> g_occBig(17, 0);

template <typename K>
static double timeLaunches(std::function<void()> launch, int warm, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < warm; i++) launch();
  CK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return median(ms);
}

static void sectionDsmemBandwidth(Json& j) {
  const size_t smem = 32 * 1024;
  allowBig(k_dsmem_bw<false>, smem);
  allowBig(k_dsmem_bw<true>, smem);
  float* sink;
  CK(cudaMalloc(&sink, 4 * 4096));
  j.key("dsmemBandwidth");
  j.obj();
  j.kvs("method", "each CTA (512 threads, 16 B accesses) reads (or writes) its right neighbour's 32 KB shared buffer `iters` times; grid = one cluster or max active clusters; median of 5 launches timed with events; bytes = CTAs x iters x 32 KB");
  j.key("rows");
  j.arr();
  for (int n : {2, 4, 8, 16}) {
    int occ = maxClusters(k_dsmem_bw<false>, 512, smem, n);
    for (int whole = 0; whole < 2; whole++) {
      for (int w = 0; w < 2; w++) {
        int clusters = whole ? occ : 1;
        if (clusters <= 0) continue;
        int grid = clusters * n;
        int iters = 1000;
        auto k = w ? k_dsmem_bw<true> : k_dsmem_bw<false>;
        double ms = timeLaunches<int>([&] { CK(launchCluster(k, grid, 512, smem, n, 0, iters, sink)); }, 2, 5);
        double bytes = (double)grid * iters * 32768.0;
        j.obj();
        j.kv("cluster", n);
        j.kvs("grid", whole ? "max-active-clusters" : "one-cluster");
        j.kvs("op", w ? "write" : "read");
        j.kv("clusters", clusters);
        j.kv("ctas", grid);
        j.kv("ms", ms);
        j.kv("totalTBps", bytes / (ms * 1e-3) / 1e12);
        j.kv("perCtaBytesPerNs", bytes / grid / (ms * 1e6));
        j.endObj();
      }
    }
  }
  j.endArr();
  j.endObj();
  CK(cudaFree(sink));
}

// ---------------------------------------------------------------------------------------------
// L2 per-line latency from every SM
__global__ void k_l2_chase(const unsigned* __restrict__ chain, unsigned start, int hops, unsigned target,
                           unsigned* latOut, int* claimed) {
  extern __shared__ unsigned s[];  // hops latencies + sink
  if (smid() != target) return;
  if (threadIdx.x != 0) return;
  if (atomicCAS(claimed, 0, 1) != 0) return;
  volatile unsigned* sink = s + hops;
  unsigned j = start;
  for (int i = 0; i < hops; i++) {
    long long t0 = clock64();
    j = __ldcg(chain + j);
    sink[0] = j;  // waits for the load
    long long t1 = clock64();
    s[i] = (unsigned)(t1 - t0);
  }
  for (int i = 0; i < hops; i++) latOut[i] = s[i];
}

__global__ void k_flush(float4* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = make_float4(1, 2, 3, 4);
}

static std::vector<unsigned char> g_l2raw;

static void sectionL2(Json& j) {
  const int L = 2048;           // lines in the chain
  const size_t region = 8 << 20; // spread over 8 MB
  const int linesInRegion = region / 128;
  std::mt19937 rng(12345);
  std::vector<int> lines(linesInRegion);
  std::iota(lines.begin(), lines.end(), 0);
  std::shuffle(lines.begin(), lines.end(), rng);
  lines.resize(L);
  std::vector<unsigned> h(region / 4, 0);
  for (int i = 0; i < L; i++) h[lines[i] * 32] = lines[(i + 1) % L] * 32;
  unsigned* chain;
  CK(cudaMalloc(&chain, region));
  CK(cudaMemcpy(chain, h.data(), region, cudaMemcpyHostToDevice));
  float4* fl;
  size_t flN = (256ull << 20) / 16;
  CK(cudaMalloc(&fl, flN * 16));
  unsigned* lat;
  int* claimed;
  CK(cudaMalloc(&lat, 4 * 2 * L));
  CK(cudaMalloc(&claimed, 4));
  const size_t smem = 120 * 1024;  // at most one CTA per SM
  CK(cudaFuncSetAttribute(k_l2_chase, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  std::vector<std::vector<unsigned>> walk1(g_sms), walk2(g_sms);
  std::vector<unsigned> cold;
  int missing = 0;
  for (int sm = 0; sm < g_sms; sm++) {
    if (sm == 0) {
      k_flush<<<1024, 256>>>(fl, flN);
      CK(cudaGetLastError());
    }
    bool ok = false;
    for (int attempt = 0; attempt < 4 && !ok; attempt++) {
      CK(cudaMemset(claimed, 0, 4));
      k_l2_chase<<<g_sms * (4 << attempt), 32, smem>>>(chain, lines[0] * 32, 2 * L, sm, lat, claimed);
      CK(cudaGetLastError());
      int c;
      CK(cudaMemcpy(&c, claimed, 4, cudaMemcpyDeviceToHost));
      ok = c == 1;
    }
    if (!ok) {
      missing++;
      continue;
    }
    std::vector<unsigned> hl(2 * L);
    CK(cudaMemcpy(hl.data(), lat, 4 * 2 * L, cudaMemcpyDeviceToHost));
    if (sm == 0) cold.assign(hl.begin(), hl.begin() + L);
    walk1[sm].assign(hl.begin(), hl.begin() + L);
    walk2[sm].assign(hl.begin() + L, hl.end());
  }
  // walk1 of SM 0 is cold (HBM); for the others walk1 follows the previous SM's walk.
  // Threshold between near and far: 2-means over all walk2 latencies of all SMs.
  std::vector<double> all;
  for (int sm = 0; sm < g_sms; sm++)
    for (unsigned v : walk2[sm]) all.push_back(v);
  double lo = 1e9, hi = 0;
  for (double v : all) lo = std::min(lo, v), hi = std::max(hi, std::min(v, 2000.0));
  double c0 = lo, c1 = hi;
  for (int it = 0; it < 50; it++) {
    double s0 = 0, s1 = 0;
    long n0 = 0, n1 = 0;
    for (double v : all) {
      if (v > 2000) continue;
      if (std::abs(v - c0) <= std::abs(v - c1)) s0 += v, n0++;
      else s1 += v, n1++;
    }
    if (n0) c0 = s0 / n0;
    if (n1) c1 = s1 / n1;
  }
  double thr = 0.5 * (c0 + c1);
  // per-SM near/far classification of each line (walk2 = second touch by the same SM)
  std::vector<std::vector<char>> far(g_sms, std::vector<char>(L, 0));
  j.key("l2");
  j.obj();
  j.kvs("method", "one thread per SM (selected by %smid) chases a 2048-line random chain spread over 8 MB with ld.global.cg, timing every dependent load with clock64 (includes ~one STS + CS2R); walk 1 follows the previous SM's walk, walk 2 is the same SM's second touch; SM 0's walk 1 follows an L2 flush (HBM); threshold between near and far from 2-means over all walk-2 latencies");
  j.kv("missingSms", missing);
  j.kv("clusterLowCycles", c0);
  j.kv("clusterHighCycles", c1);
  j.kv("thresholdCycles", thr);
  std::vector<double> coldv(cold.begin(), cold.end());
  j.kv("hbmColdMedianCycles", median(coldv));
  std::vector<double> nearAll, farAll, w1All;
  j.key("perSm");
  j.arr();
  for (int sm = 0; sm < g_sms; sm++) {
    if (walk2[sm].empty()) continue;
    std::vector<double> nv, fv, w1;
    for (int i = 0; i < L; i++) {
      double v = walk2[sm][i];
      if (v < thr) nv.push_back(v);
      else {
        fv.push_back(v);
        far[sm][i] = 1;
      }
      if (sm > 0) w1.push_back(walk1[sm][i]);
    }
    for (double v : nv) nearAll.push_back(v);
    for (double v : fv) farAll.push_back(v);
    for (double v : w1) w1All.push_back(v);
    j.obj();
    j.kv("sm", sm);
    j.kv("gpc", g_gpcOfSm.empty() ? -1 : g_gpcOfSm[sm]);
    j.kv("walk2MedianCycles", median(std::vector<double>(walk2[sm].begin(), walk2[sm].end())));
    j.kv("walk1MedianCycles", sm > 0 ? median(w1) : NAN);
    j.kv("nearMedianCycles", median(nv));
    j.kv("farMedianCycles", median(fv));
    j.kv("farFraction", (double)fv.size() / L);
    j.endObj();
  }
  j.endArr();
  j.kv("nearMedianCycles", median(nearAll));
  j.kv("farMedianCycles", median(farAll));
  j.kv("walk1MedianCycles", median(w1All));
  // SM sides: SMs whose far-line sets agree
  std::vector<int> side(g_sms, -1);
  int ref = -1;
  for (int sm = 0; sm < g_sms; sm++)
    if (!walk2[sm].empty()) {
      ref = sm;
      break;
    }
  int agreeSame = 0, agreeOpp = 0;
  if (ref >= 0) {
    for (int sm = 0; sm < g_sms; sm++) {
      if (walk2[sm].empty()) continue;
      int same = 0;
      for (int i = 0; i < L; i++) same += far[sm][i] == far[ref][i];
      double f = (double)same / L;
      side[sm] = f > 0.5 ? 0 : 1;
      if (f > 0.9) agreeSame++;
      else if (f < 0.1) agreeOpp++;
    }
  }
  j.kv("smsClearlySameSideAsRef", agreeSame);
  j.kv("smsClearlyOppositeSide", agreeOpp);
  j.key("sideOfSm");
  j.arr();
  for (int sm = 0; sm < g_sms; sm++) j.num(side[sm]);
  j.endArr();
  // side by GPC
  if (!g_gpcOfSm.empty()) {
    int G = *std::max_element(g_gpcOfSm.begin(), g_gpcOfSm.end()) + 1;
    j.key("side0FractionByGpc");
    j.arr();
    for (int g = 0; g < G; g++) {
      int n = 0, s0 = 0;
      for (int sm = 0; sm < g_sms; sm++)
        if (g_gpcOfSm[sm] == g && side[sm] >= 0) n++, s0 += side[sm] == 0;
      j.num(n ? (double)s0 / n : NAN);
    }
    j.endArr();
  }
  // histogram of walk-2 latencies (bins of 20 cycles)
  j.key("walk2Histogram20");
  j.arr();
  std::vector<long> hist(60, 0);
  for (double v : all) hist[std::min<int>(59, (int)(v / 20))]++;
  for (long c : hist) j.num((double)c);
  j.endArr();
  j.endObj();
  // raw latencies for the archive: [sm][walk][line] uint16
  g_l2raw.clear();
  for (int sm = 0; sm < g_sms; sm++)
    for (int w = 0; w < 2; w++)
      for (int i = 0; i < L; i++) {
        unsigned v = walk2[sm].empty() ? 0 : (w ? walk2[sm][i] : walk1[sm][i]);
        v = std::min(v, 65535u);
        g_l2raw.push_back(v & 255);
        g_l2raw.push_back(v >> 8);
      }
  CK(cudaFree(chain));
  CK(cudaFree(fl));
  CK(cudaFree(lat));
  CK(cudaFree(claimed));
}

// ---------------------------------------------------------------------------------------------
// atomics and fences (one thread)
__device__ __forceinline__ unsigned atom_relaxed(unsigned* p, unsigned v) {
  unsigned r;
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(v) : "memory");
  return r;
}
__device__ __forceinline__ unsigned atom_release(unsigned* p, unsigned v) {
  unsigned r;
  asm volatile("atom.release.gpu.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(v) : "memory");
  return r;
}
__device__ __forceinline__ unsigned atom_acqrel(unsigned* p, unsigned v) {
  unsigned r;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(v) : "memory");
  return r;
}
__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
  unsigned r;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__device__ __forceinline__ void red_release(unsigned* p, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// out[k] = cycles per op for test k
__global__ void k_atomics(unsigned* base, unsigned* data, long long* out, int n) {
  if (threadIdx.x != 0) return;
  unsigned v = 0;
  unsigned* p = base;
  long long t0, t1;
  // 0: relaxed atomic add, dependent chain
  t0 = clock64();
  for (int i = 0; i < n; i++) v = atom_relaxed(p + (v >> 30), 1);
  t1 = clock64();
  out[0] = (t1 - t0) / n;
  // 1: release atomic add, dependent
  t0 = clock64();
  for (int i = 0; i < n; i++) v = atom_release(p + (v >> 30), 1);
  t1 = clock64();
  out[1] = (t1 - t0) / n;
  // 2: acq_rel atomic add
  t0 = clock64();
  for (int i = 0; i < n; i++) v = atom_acqrel(p + (v >> 30), 1);
  t1 = clock64();
  out[2] = (t1 - t0) / n;
  // 3: acquire load, dependent chain
  t0 = clock64();
  for (int i = 0; i < n; i++) v = ld_acquire(p + 32 + (v >> 30));
  t1 = clock64();
  out[3] = (t1 - t0) / n;
  // 4: relaxed .cg load, dependent chain (L2 round trip baseline)
  t0 = clock64();
  for (int i = 0; i < n; i++) v = __ldcg(p + 64 + (v >> 30));
  t1 = clock64();
  out[4] = (t1 - t0) / n;
  // 5: fence.acq_rel.gpu with nothing outstanding
  t0 = clock64();
  for (int i = 0; i < n; i++) asm volatile("fence.acq_rel.gpu;" ::: "memory");
  t1 = clock64();
  out[5] = (t1 - t0) / n;
  // 6: store + fence.acq_rel.gpu
  t0 = clock64();
  for (int i = 0; i < n; i++) {
    data[i & 1023] = i + v;
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
  }
  t1 = clock64();
  out[6] = (t1 - t0) / n;
  // 7: store only (issue rate)
  t0 = clock64();
  for (int i = 0; i < n; i++) {
    data[i & 1023] = i + v;
    asm volatile("" ::: "memory");
  }
  t1 = clock64();
  out[7] = (t1 - t0) / n;
  // 8: fence.sc.gpu
  t0 = clock64();
  for (int i = 0; i < n; i++) asm volatile("fence.sc.gpu;" ::: "memory");
  t1 = clock64();
  out[8] = (t1 - t0) / n;
  // 9: store + __threadfence() (fence.sc.gpu in current CUDA)
  t0 = clock64();
  for (int i = 0; i < n; i++) {
    data[i & 1023] = i + v;
    __threadfence();
  }
  t1 = clock64();
  out[9] = (t1 - t0) / n;
  // 10: 16 stores to distinct lines + fence.acq_rel.gpu (a tile's output then a release)
  t0 = clock64();
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int k = 0; k < 16; k++) data[(k * 32 + i) & 1023] = i + k;
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
  }
  t1 = clock64();
  out[10] = (t1 - t0) / n;
  // 11: red.release.gpu (fire and forget) followed by acquire load of the same word
  t0 = clock64();
  for (int i = 0; i < n; i++) {
    red_release(p + 96, 1);
    v = ld_acquire(p + 96 + (v >> 30));
  }
  t1 = clock64();
  out[11] = (t1 - t0) / n;
  // 12: fence.acq_rel.cluster
  t0 = clock64();
  for (int i = 0; i < n; i++) asm volatile("fence.acq_rel.cluster;" ::: "memory");
  t1 = clock64();
  out[12] = (t1 - t0) / n;
  out[15] = v;
}

// per-address atomic latency: 64 different lines
__global__ void k_atom_lines(unsigned* base, long long* out, int n) {
  if (threadIdx.x != 0) return;
  unsigned v = 0;
  for (int l = 0; l < 64; l++) {
    unsigned* p = base + l * 4099;  // ~16 KB apart, different lines
    for (int i = 0; i < 8; i++) v = atom_relaxed(p + (v >> 30), 1);
    long long t0 = clock64();
    for (int i = 0; i < n; i++) v = atom_relaxed(p + (v >> 30), 1);
    long long t1 = clock64();
    out[l] = (t1 - t0) / n;
  }
  out[64] = v;
}

// cluster barrier cost
__global__ void k_cluster_sync(int n, long long* out) {
  cg::cluster_group cl = cg::this_cluster();
  cl.sync();
  long long t0 = clock64();
  for (int i = 0; i < n; i++) cl.sync();
  long long t1 = clock64();
  if (cl.block_rank() == 0 && threadIdx.x == 0 && blockIdx.x == 0) out[0] = (t1 - t0) / n;
}

// contended: every thread of the grid adds to one word
__global__ void k_contended(unsigned* p, int n) {
  for (int i = 0; i < n; i++) atomicAdd(p, 1u);
}
// vector of half2 accumulated by many CTAs (the fused output projection's epilogue)
__global__ void k_red_half2(__half2* y, int elems, int reps) {
  for (int r = 0; r < reps; r++)
    for (int i = threadIdx.x; i < elems; i += blockDim.x) atomicAdd(y + i, __halves2half2(__float2half(1.f), __float2half(1.f)));
}

static void sectionAtomics(Json& j) {
  unsigned *base, *data;
  long long* out;
  CK(cudaMalloc(&base, 64 << 20));
  CK(cudaMalloc(&data, 4096 * 4));
  CK(cudaMalloc(&out, 8 * 128));
  CK(cudaMemset(base, 0, 64 << 20));
  const char* names[] = {"atomAddRelaxedGpu", "atomAddReleaseGpu", "atomAddAcqRelGpu", "ldAcquireGpu", "ldCg",
                         "fenceAcqRelGpuIdle", "storeThenFenceAcqRelGpu", "storeOnly", "fenceScGpuIdle",
                         "storeThenThreadfence", "store16LinesThenFenceAcqRelGpu", "redReleaseThenLdAcquire",
                         "fenceAcqRelClusterIdle"};
  std::vector<std::vector<double>> v(13);
  for (int rep = 0; rep < 5; rep++) {
    k_atomics<<<1, 32>>>(base, data, out, 2000);
    CK(cudaGetLastError());
    long long h[16];
    CK(cudaMemcpy(h, out, 8 * 16, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 13; k++) v[k].push_back((double)h[k]);
  }
  j.key("atomics");
  j.obj();
  j.kvs("method", "one thread, 2000 iterations, cycles per iteration (dependent chains for atomics and loads; L2-resident words), median of 5 launches");
  for (int k = 0; k < 13; k++) j.kv(names[k], median(v[k]));
  // per line
  k_atom_lines<<<1, 32>>>(base, out, 200);
  CK(cudaGetLastError());
  long long hl[65];
  CK(cudaMemcpy(hl, out, 8 * 65, cudaMemcpyDeviceToHost));
  j.key("atomRelaxedByLine");
  j.arr();
  for (int l = 0; l < 64; l++) j.num((double)hl[l]);
  j.endArr();
  // cluster barrier
  j.key("clusterSyncCycles");
  j.obj();
  CK(cudaFuncSetAttribute(k_cluster_sync, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  for (int n : {1, 2, 4, 8, 16}) {
    std::vector<double> c;
    for (int rep = 0; rep < 5; rep++) {
      CK(launchCluster(k_cluster_sync, n, 128, 0, n, 0, 1000, out));
      CK(cudaDeviceSynchronize());
      long long h;
      CK(cudaMemcpy(&h, out, 8, cudaMemcpyDeviceToHost));
      c.push_back((double)h);
    }
    j.kv(std::to_string(n), median(c));
  }
  j.endObj();
  // contended
  {
    int grid = g_sms * 4, block = 256, n = 64;
    double ms = timeLaunches<int>([&] { k_contended<<<grid, block>>>(base, n); }, 2, 5);
    j.kv("contendedSameWordAtomicsPerNs", (double)grid * block * n / (ms * 1e6));
  }
  {
    int ctas = 128, elems = 2048, reps = 8;
    double ms = timeLaunches<int>([&] { k_red_half2<<<ctas, 256>>>((__half2*)data, elems, reps); }, 2, 5);
    j.kv("half2AtomicAdd128CtasOn2048ElemsNs", ms * 1e6 / reps);
    j.kv("half2AtomicAddPerNs", (double)ctas * elems * reps / (ms * 1e6));
    j.kvs("half2Note", "128 CTAs x 256 threads each atomically add to the same 2048-element half2 vector, 8 passes; ns per pass (launch amortised)");
  }
  j.endObj();
  CK(cudaFree(base));
  CK(cudaFree(data));
  CK(cudaFree(out));
}

// ---------------------------------------------------------------------------------------------
// launch costs
__global__ void k_empty() {}
__global__ void k_empty_cluster() {}

static void sectionLaunch(Json& j) {
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  j.key("launch");
  j.obj();
  j.kvs("method", "1000 back-to-back empty kernels: in a stream (host issue rate bound) and captured in one CUDA graph; us per kernel, median of 5");
  for (int grid : {1, 132, 528}) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> streamUs, graphUs;
    for (int rep = 0; rep < 5; rep++) {
      CK(cudaEventRecord(a, st));
      for (int i = 0; i < 1000; i++) k_empty<<<grid, 128, 0, st>>>();
      CK(cudaEventRecord(b, st));
      CK(cudaEventSynchronize(b));
      float t;
      CK(cudaEventElapsedTime(&t, a, b));
      streamUs.push_back(t);
    }
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 1000; i++) k_empty<<<grid, 128, 0, st>>>();
    CK(cudaStreamEndCapture(st, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, st));
    CK(cudaStreamSynchronize(st));
    for (int rep = 0; rep < 5; rep++) {
      CK(cudaEventRecord(a, st));
      CK(cudaGraphLaunch(ge, st));
      CK(cudaEventRecord(b, st));
      CK(cudaEventSynchronize(b));
      float t;
      CK(cudaEventElapsedTime(&t, a, b));
      graphUs.push_back(t);
    }
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    j.key("grid" + std::to_string(grid));
    j.obj();
    j.kv("streamUsPerKernel", median(streamUs));  // ms per 1000 = us per kernel
    j.kv("graphUsPerNode", median(graphUs));
    j.endObj();
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
  }
  CK(cudaStreamDestroy(st));
  j.endObj();
}

// ---------------------------------------------------------------------------------------------
// collectives
// On-chip ClusterReduce: log2 N rounds; round s pushes the running vector into peer (rank+s)%N's
// receive buffer (double-buffered), cluster barrier, add. ClusterGather: round s pushes the s
// slices held so far into the peer's buffer at their own offsets.
// Off-chip: the same rounds through global memory (st, fence, flag barrier among the N CTAs, ld.cg).

__device__ __forceinline__ void groupBarrier(unsigned* ctr, unsigned target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(ctr, 1u);
    while (ld_acquire(ctr) < target) {
    }
  }
  __syncthreads();
}

// mode: 0 reduce on-chip, 1 gather on-chip; E = floats per CTA (reduce: vector; gather: slice)
__global__ void k_coll_onchip(int mode, int E, long long* clk, unsigned* errors) {
  extern __shared__ float4 sm4[];
  float* smf = (float*)sm4;
  cg::cluster_group cl = cg::this_cluster();
  const unsigned rank = cl.block_rank(), N = cl.num_blocks();
  const int E4 = E / 4;
  if (mode == 0) {
    float4* data = sm4;
    float4* recv0 = sm4 + E4;
    float4* recv1 = sm4 + 2 * E4;
    for (int i = threadIdx.x; i < E4; i += blockDim.x) {
      float b = rank;
      data[i] = make_float4(b + (4 * i) % 7, b + (4 * i + 1) % 7, b + (4 * i + 2) % 7, b + (4 * i + 3) % 7);
    }
    cl.sync();
    long long t0 = clock64();
    int round = 0;
    for (unsigned s = 1; s < N; s <<= 1, round++) {
      float4* mine = (round & 1) ? recv1 : recv0;
      float4* dst = cl.map_shared_rank(mine, (rank + s) % N);
      for (int i = threadIdx.x; i < E4; i += blockDim.x) dst[i] = data[i];
      cl.sync();
      for (int i = threadIdx.x; i < E4; i += blockDim.x) {
        float4 a = data[i], b = mine[i];
        data[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
      }
    }
    cl.sync();
    long long t1 = clock64();
    if (threadIdx.x == 0 && blockIdx.x == 0) clk[0] = t1 - t0;
    unsigned bad = 0;
    float base = N * (N - 1) / 2.f;
    for (int i = threadIdx.x; i < E; i += blockDim.x)
      if (smf[i] != base + N * (float)(i % 7)) bad++;
    if (bad) atomicAdd(errors, bad);
  } else {
    float* buf = smf;  // N*E floats
    for (int i = threadIdx.x; i < E; i += blockDim.x) buf[rank * E + i] = rank * 1000.f + (i % 7);
    cl.sync();
    long long t0 = clock64();
    for (unsigned s = 1; s < N; s <<= 1) {
      float4* dst = (float4*)cl.map_shared_rank(buf, (rank + s) % N);
      for (unsigned k = 0; k < s; k++) {
        unsigned slice = (rank + N - k) % N;
        const float4* src = (const float4*)(buf + slice * E);
        float4* d = dst + slice * E4;
        for (int i = threadIdx.x; i < E4; i += blockDim.x) d[i] = src[i];
      }
      cl.sync();
    }
    long long t1 = clock64();
    if (threadIdx.x == 0 && blockIdx.x == 0) clk[0] = t1 - t0;
    unsigned bad = 0;
    for (int i = threadIdx.x; i < N * E; i += blockDim.x)
      if (buf[i] != (i / E) * 1000.f + ((i % E) % 7)) bad++;
    if (bad) atomicAdd(errors, bad);
  }
}

__global__ void k_coll_offchip(int mode, int E, int N, float* scratch, unsigned* ctrs, unsigned epochBase,
                               long long* clk, unsigned* errors) {
  extern __shared__ float4 sm4[];
  float* smf = (float*)sm4;
  const unsigned group = blockIdx.x / N, rank = blockIdx.x % N;
  const int E4 = E / 4;
  unsigned* ctr = ctrs + group * 32;
  unsigned target = epochBase;
  if (mode == 0) {
    float4* data = sm4;
    // scratch per group: 2 buffers x N CTAs x E floats
    float4* g = (float4*)(scratch + (size_t)group * 2 * N * E);
    for (int i = threadIdx.x; i < E4; i += blockDim.x) {
      float b = rank;
      data[i] = make_float4(b + (4 * i) % 7, b + (4 * i + 1) % 7, b + (4 * i + 2) % 7, b + (4 * i + 3) % 7);
    }
    target += N;
    groupBarrier(ctr, target);
    long long t0 = clock64();
    int round = 0;
    for (unsigned s = 1; s < (unsigned)N; s <<= 1, round++) {
      float4* slot = g + (size_t)((round & 1) * N) * E4;
      for (int i = threadIdx.x; i < E4; i += blockDim.x) slot[rank * E4 + i] = data[i];
      target += N;
      groupBarrier(ctr, target);
      const float4* src = slot + ((rank + N - s) % N) * E4;
      for (int i = threadIdx.x; i < E4; i += blockDim.x) {
        float4 a = data[i], b = __ldcg(src + i);
        data[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
      }
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0 && blockIdx.x == 0) clk[0] = t1 - t0;
    unsigned bad = 0;
    float base = N * (N - 1) / 2.f;
    for (int i = threadIdx.x; i < E; i += blockDim.x)
      if (smf[i] != base + N * (float)(i % 7)) bad++;
    if (bad) atomicAdd(errors, bad);
  } else {
    // gather: each CTA's buffer of N*E floats lives in global memory (its slot in scratch)
    float* mine = scratch + ((size_t)group * N + rank) * N * E;
    float* sbuf = smf;
    for (int i = threadIdx.x; i < E; i += blockDim.x) sbuf[rank * E + i] = rank * 1000.f + (i % 7);
    target += N;
    groupBarrier(ctr, target);
    long long t0 = clock64();
    for (unsigned s = 1; s < (unsigned)N; s <<= 1) {
      // publish the s slices held so far in my global buffer, then copy them from the peer (rank - s)
      for (unsigned k = 0; k < s; k++) {
        unsigned slice = (rank + N - k) % N;
        float4* d = (float4*)(mine + slice * E);
        const float4* srcs = (const float4*)(sbuf + slice * E);
        for (int i = threadIdx.x; i < E4; i += blockDim.x) d[i] = srcs[i];
      }
      target += N;
      groupBarrier(ctr, target);
      unsigned from = (rank + N - s) % N;
      const float* theirs = scratch + ((size_t)group * N + from) * N * E;
      for (unsigned k = 0; k < s; k++) {
        unsigned slice = (from + N - k) % N;
        const float4* src = (const float4*)(theirs + slice * E);
        float4* d = (float4*)(sbuf + slice * E);
        for (int i = threadIdx.x; i < E4; i += blockDim.x) d[i] = __ldcg(src + i);
      }
      __syncthreads();
    }
    long long t1 = clock64();
    if (threadIdx.x == 0 && blockIdx.x == 0) clk[0] = t1 - t0;
    unsigned bad = 0;
    for (int i = threadIdx.x; i < N * E; i += blockDim.x)
      if (sbuf[i] != (i / E) * 1000.f + ((i % E) % 7)) bad++;
    if (bad) atomicAdd(errors, bad);
  }
}

static void sectionCollectives(Json& j) {
  const int threads = 128;
  allowBig(k_coll_onchip, 227 * 1024);
  CK(cudaFuncSetAttribute(k_coll_offchip, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
  long long* clk;
  unsigned *errors, *ctrs;
  float* scratch;
  CK(cudaMalloc(&clk, 64));
  CK(cudaMalloc(&errors, 4));
  CK(cudaMalloc(&ctrs, 4 * 32 * 1024));
  CK(cudaMalloc(&scratch, 512ull << 20));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  j.key("collectives");
  j.obj();
  j.kvs("method",
        "128 threads per CTA, fp32 data, 16 B accesses. reduce: every CTA holds `bytes` and ends with the sum over the cluster; gather: every CTA holds a `bytes` slice and ends with all N slices. log2 N rounds, peer (rank+s) mod N, stride doubling. onChip: pushes into the peer's shared memory (DSMEM, cluster.map_shared_rank) + cluster.sync per round; offChip: the same rounds through global memory (stores, __threadfence, an atomic flag barrier among the N CTAs, ld.global.cg), launched without clusters. kernelUs: period of 20 back-to-back launches in one stream / 20 (launch included), median of 7; graphUs: per launch inside a CUDA graph of 20 launches; collectiveUs: clock64 between the first and last barrier of CTA 0 (data load and check excluded), median of 7");
  j.key("rows");
  j.arr();
  unsigned epoch = 0;
  for (int mode = 0; mode < 2; mode++) {
    std::vector<int> kbs = mode == 0 ? std::vector<int>{1, 2, 4, 8, 16, 32, 64} : std::vector<int>{1, 4, 8, 16, 32, 64};
    for (int N : {2, 4, 8, 16}) {
      for (int kb : kbs) {
        int E = kb * 256;  // floats per CTA (reduce: vector; gather: slice)
        size_t need = mode == 0 ? 3ull * E * 4 : (size_t)N * E * 4;
        if (need > 227 * 1024) continue;
        // at most one CTA per SM (as a fused decode kernel with ~100 KB of shared memory runs)
        size_t smem = std::max<size_t>(need, 116 * 1024);
        for (int whole = 0; whole < 2; whole++) {
          int occ = maxClusters(k_coll_onchip, threads, smem, N);
          if (occ <= 0) continue;
          int groups = whole ? occ : 1;
          int grid = groups * N;
          for (int off = 0; off < 2; off++) {
            size_t scratchNeed = mode == 0 ? (size_t)groups * 2 * N * E * 4 : (size_t)groups * N * N * E * 4;
            if (off && scratchNeed > (512ull << 20)) continue;
            CK(cudaMemset(errors, 0, 4));
            CK(cudaMemset(ctrs, 0, 4 * 32 * 1024));
            epoch = 0;
            int barriers = 1 + (N == 2 ? 1 : N == 4 ? 2 : N == 8 ? 3 : 4);
            auto launch = [&]() {
              if (!off) {
                CK(launchCluster(k_coll_onchip, grid, threads, smem, N, st, mode, E, clk, errors));
              } else {
                k_coll_offchip<<<grid, threads, smem, st>>>(mode, E, N, scratch, ctrs, epoch, clk, errors);
                CK(cudaGetLastError());
                epoch += N * barriers;
              }
            };
            for (int w = 0; w < 3; w++) launch();
            CK(cudaStreamSynchronize(st));
            std::vector<double> kus, cus, gus;
            for (int rep = 0; rep < 7; rep++) {
              CK(cudaEventRecord(a, st));
              for (int i = 0; i < 20; i++) launch();
              CK(cudaEventRecord(b, st));
              CK(cudaEventSynchronize(b));
              float t;
              CK(cudaEventElapsedTime(&t, a, b));
              kus.push_back(t * 1000 / 20);
              long long c;
              CK(cudaMemcpy(&c, clk, 8, cudaMemcpyDeviceToHost));
              cus.push_back(c / g_clockGHz / 1000.0);
            }
            // graph of 20 launches (on-chip only: off-chip epochs are baked into the arguments)
            if (!off) {
              cudaGraph_t g;
              cudaGraphExec_t ge;
              CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
              for (int i = 0; i < 20; i++) launch();
              CK(cudaStreamEndCapture(st, &g));
              CK(cudaGraphInstantiate(&ge, g, 0));
              CK(cudaGraphLaunch(ge, st));
              CK(cudaStreamSynchronize(st));
              for (int rep = 0; rep < 7; rep++) {
                CK(cudaEventRecord(a, st));
                CK(cudaGraphLaunch(ge, st));
                CK(cudaEventRecord(b, st));
                CK(cudaEventSynchronize(b));
                float t;
                CK(cudaEventElapsedTime(&t, a, b));
                gus.push_back(t * 1000 / 20);
              }
              CK(cudaGraphExecDestroy(ge));
              CK(cudaGraphDestroy(g));
            }
            unsigned errs;
            CK(cudaMemcpy(&errs, errors, 4, cudaMemcpyDeviceToHost));
            j.obj();
            j.kvs("op", mode == 0 ? "reduce" : "gather");
            j.kv("cluster", N);
            j.kv("bytes", kb * 1024);
            j.kvs("grid", whole ? "max-active-clusters" : "one-cluster");
            j.kv("groups", groups);
            j.kv("onChip", off ? 0 : 1);
            j.kv("kernelUs", median(kus));
            j.kv("graphUs", off ? NAN : median(gus));
            j.kv("collectiveUs", median(cus));
            j.kv("errors", errs);
            j.endObj();
          }
        }
      }
    }
  }
  j.endArr();
  // launch baseline: an empty cluster kernel of each size, one cluster
  j.key("emptyClusterKernelUs");
  j.obj();
  CK(cudaFuncSetAttribute(k_empty_cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  for (int N : {1, 2, 4, 8, 16}) {
    std::vector<double> us;
    for (int rep = 0; rep < 7; rep++) {
      CK(cudaEventRecord(a, st));
      for (int i = 0; i < 20; i++) CK(launchCluster(k_empty_cluster, N, 128, 0, N, st));
      CK(cudaEventRecord(b, st));
      CK(cudaEventSynchronize(b));
      float t;
      CK(cudaEventElapsedTime(&t, a, b));
      us.push_back(t * 1000 / 20);
    }
    j.kv(std::to_string(N), median(us));
  }
  j.endObj();
  j.endObj();
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  CK(cudaStreamDestroy(st));
  CK(cudaFree(clk));
  CK(cudaFree(errors));
  CK(cudaFree(ctrs));
  CK(cudaFree(scratch));
}

// ---------------------------------------------------------------------------------------------
// L2 side of each GPC: after an L2 flush, the first SM of GPC g walks the chain (lines land in
// their home half and, for far-homed lines, a copy in g's near half); then SM `probe` walks it:
// if g is on the probe's side every line is near for the probe, otherwise the lines homed on g's
// side are far for it (about half).
static void sectionL2Sides(Json& j) {
  const int L = 2048;
  const size_t region = 8 << 20;
  const int linesInRegion = region / 128;
  std::mt19937 rng(777);
  std::vector<int> lines(linesInRegion);
  std::iota(lines.begin(), lines.end(), 0);
  std::shuffle(lines.begin(), lines.end(), rng);
  lines.resize(L);
  std::vector<unsigned> h(region / 4, 0);
  for (int i = 0; i < L; i++) h[lines[i] * 32] = lines[(i + 1) % L] * 32;
  unsigned* chain;
  CK(cudaMalloc(&chain, region));
  CK(cudaMemcpy(chain, h.data(), region, cudaMemcpyHostToDevice));
  float4* fl;
  size_t flN = (256ull << 20) / 16;
  CK(cudaMalloc(&fl, flN * 16));
  unsigned* lat;
  int* claimed;
  CK(cudaMalloc(&lat, 4 * L));
  CK(cudaMalloc(&claimed, 4));
  const size_t smem = 120 * 1024;
  CK(cudaFuncSetAttribute(k_l2_chase, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  auto walk = [&](int sm, std::vector<unsigned>& out) {
    for (int attempt = 0; attempt < 4; attempt++) {
      CK(cudaMemset(claimed, 0, 4));
      k_l2_chase<<<g_sms * (4 << attempt), 32, smem>>>(chain, lines[0] * 32, L, sm, lat, claimed);
      CK(cudaGetLastError());
      int c;
      CK(cudaMemcpy(&c, claimed, 4, cudaMemcpyDeviceToHost));
      if (c == 1) break;
    }
    out.resize(L);
    CK(cudaMemcpy(out.data(), lat, 4 * L, cudaMemcpyDeviceToHost));
  };
  int G = g_gpcOfSm.empty() ? 0 : *std::max_element(g_gpcOfSm.begin(), g_gpcOfSm.end()) + 1;
  j.key("l2Sides");
  j.obj();
  j.kvs("method", "for each SM group (GPC) g: flush L2 (256 MB of stores), the lowest SM of g walks a 2048-line chain (8 MB span), then a probe SM walks it; lines over 400 cycles count as far for the probe; probes: SM 0 and SM 2 (opposite sides in the first run)");
  j.key("rows");
  j.arr();
  for (int probe : {0, 2}) {
    for (int g = 0; g < G; g++) {
      int first = -1;
      for (int s = 0; s < g_sms; s++)
        if (g_gpcOfSm[s] == g) {
          first = s;
          break;
        }
      if (first < 0 || first == probe) continue;
      k_flush<<<1024, 256>>>(fl, flN);
      CK(cudaGetLastError());
      std::vector<unsigned> a, b;
      walk(first, a);
      walk(probe, b);
      int farLines = 0;
      std::vector<double> fv, nv;
      for (unsigned v : b) {
        if (v > 400) farLines++, fv.push_back(v);
        else nv.push_back(v);
      }
      j.obj();
      j.kv("probeSm", probe);
      j.kv("group", g);
      j.kv("firstSm", first);
      j.kv("farLines", farLines);
      j.kv("farMedianCycles", median(fv));
      j.kv("nearMedianCycles", median(nv));
      j.endObj();
    }
  }
  j.endArr();
  j.endObj();
  CK(cudaFree(chain));
  CK(cudaFree(fl));
  CK(cudaFree(lat));
  CK(cudaFree(claimed));
}

// ---------------------------------------------------------------------------------------------
int main(int argc, char** argv) {
  const char* outPath = argc > 1 ? argv[1] : "microbench.json";
  const char* rawPath = argc > 2 ? argv[2] : "l2_latency_raw.bin";
  Json j;
  j.obj();
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  g_sms = p.multiProcessorCount;
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  j.key("device");
  j.obj();
  j.kvs("name", p.name);
  j.kv("sms", p.multiProcessorCount);
  j.kv("l2Bytes", p.l2CacheSize);
  j.kv("smemPerSm", p.sharedMemPerMultiprocessor);
  j.kv("smemPerBlockOptin", p.sharedMemPerBlockOptin);
  j.kv("cudaDriver", drv);
  j.kv("cudaRuntime", rt);
  j.endObj();
  auto section = [&](const char* name, std::function<void()> f) {
    fprintf(stderr, "[microbench] %s...\n", name);
    Json snapshot = j;
    try {
      f();
    } catch (std::exception& e) {
      fprintf(stderr, "[microbench] %s FAILED: %s\n", name, e.what());
      j = snapshot;
      std::string msg = e.what();
      for (char& c : msg)
        if (c == '"' || c == '\\') c = '\'';
      j.kvs(std::string(name) + "Error", msg);
      cudaGetLastError();
    }
  };
  section("clock", [&] {
    g_clockGHz = measureClock();
    j.kv("smClockGHzBefore", g_clockGHz);
  });
  section("gpcs", [&] { sectionGpcs(j); });
  section("dsmemLatency", [&] { sectionDsmemLatency(j); });
  section("dsmemBandwidth", [&] { sectionDsmemBandwidth(j); });
  section("atomics", [&] { sectionAtomics(j); });
  section("launch", [&] { sectionLaunch(j); });
  section("collectives", [&] { sectionCollectives(j); });
  section("l2", [&] { sectionL2(j); });
  section("l2Sides", [&] { sectionL2Sides(j); });
  section("clockAfter", [&] { j.kv("smClockGHzAfter", measureClock()); });
  j.endObj();
  FILE* f = fopen(outPath, "w");
  fputs(j.s.c_str(), f);
  fputs("\n", f);
  fclose(f);
  if (!g_l2raw.empty()) {
    FILE* r = fopen(rawPath, "wb");
    fwrite(g_l2raw.data(), 1, g_l2raw.size(), r);
    fclose(r);
  }
  fprintf(stderr, "[microbench] wrote %s\n", outPath);
  return 0;
}
