// CPU check of the suite's kernels (see run.sh): each kernel runs under the
// emulator of shim.h on small edge-case shapes, for each instantiation that
// matters, and its outputs are compared with a double-precision reference of
// the formula in the kernel's header comment, rounded to the output type.
// Quantized outputs (fp8, int8) are compared exactly against the same f32
// recipe; everything else within the tolerance of the kernel's spec.
#include "shim.h"
#include <cstdio>
#include <random>
#include <algorithm>
#include <string>
#include "src/silu_and_mul.cc"
#include "src/gelu_and_mul.cc"
#include "src/gelu_tanh_and_mul.cc"
#include "src/rmsnorm.cc"
#include "src/fused_add_rmsnorm.cc"
#include "src/layernorm.cc"
#include "src/rotary_embedding.cc"
#include "src/merge_attn_states.cc"
#include "src/per_token_fp8_quant.cc"
#include "src/per_token_group_int8_quant.cc"
#include "src/moe_topk_softmax.cc"
#include "src/moe_sum_reduce.cc"
#include "src/gather_rows.cc"
#include "src/segment_mean_csr.cc"
#include "src/spmm_csr.cc"
#include "src/scatter_add.cc"
#include "src/neighbor_sample.cc"
#include "src/sage_mean_concat.cc"

static std::mt19937 rng(1234);
static int failures = 0, checks = 0;

template <class T> std::vector<T> randn(size_t n, double scale = 1.0) {
  std::normal_distribution<double> d(0.0, scale);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>((float)d(rng));
  return v;
}
template <class T> double f(T x) { return (double)static_cast<float>(x); }

struct Cmp {
  std::string name; double rtol, atol; int bad = 0; long n = 0; double worst = 0;
  Cmp(std::string s, double r, double a) : name(s), rtol(r), atol(a) {}
  void operator()(double got, double ref, long i) {
    ++n;
    bool ok = (std::isnan(ref) && std::isnan(got)) || (got == ref) ||
              std::fabs(got - ref) <= atol + rtol * std::fabs(ref);
    double err = std::fabs(got - ref) / (atol + rtol * std::fabs(ref));
    if (err > worst && !std::isnan(err)) worst = err;
    if (!ok && bad++ < 5) printf("  %s[%ld]: got %.8g ref %.8g\n", name.c_str(), i, got, ref);
  }
  ~Cmp() {
    ++checks;
    if (bad) ++failures;
    printf("%-4s %-48s %ld values, %d bad, worst err/tol %.3f\n", bad ? "FAIL" : "ok",
           name.c_str(), n, bad, worst);
  }
};

template <class T> void test_silu(int Tn, int d, const char* tn, double rtol) {
  auto in = randn<T>((size_t)Tn * 2 * d);
  std::vector<T> out((size_t)Tn * d);
  emu_launch(&silu_and_mul<T>, dim3(Tn), dim3(std::min(d, 1024)), out.data(), (const T*)in.data(), d);
  Cmp c(std::string("silu_and_mul<") + tn + "> d=" + std::to_string(d), rtol, 1e-5);
  for (int t = 0; t < Tn; ++t) for (int i = 0; i < d; ++i) {
    double g = f(in[(size_t)t*2*d+i]), u = f(in[(size_t)t*2*d+d+i]);
    c(f(out[(size_t)t*d+i]), f(static_cast<T>((float)(g / (1 + std::exp(-g)) * u))), i);
  }
}
template <class T> void test_gelu(int Tn, int d, const char* tn, double rtol) {
  auto in = randn<T>((size_t)Tn * 2 * d);
  std::vector<T> out((size_t)Tn * d), out2((size_t)Tn * d);
  emu_launch(&gelu_and_mul<T>, dim3((d + 255) / 256, Tn), dim3(256), out.data(), (const T*)in.data(), d);
  emu_launch(&gelu_tanh_and_mul<T>, dim3(3), dim3(64), out2.data(), (const T*)in.data(), Tn, d);
  Cmp c(std::string("gelu_and_mul<") + tn + ">", rtol, 1e-5);
  Cmp c2(std::string("gelu_tanh_and_mul<") + tn + "> (grid-stride, 3 blocks)", rtol, 1e-5);
  for (int t = 0; t < Tn; ++t) for (int i = 0; i < d; ++i) {
    double g = f(in[(size_t)t*2*d+i]), u = f(in[(size_t)t*2*d+d+i]);
    double ge = 0.5 * g * (1 + std::erf(g / std::sqrt(2.0)));
    double gt = 0.5 * g * (1 + std::tanh(std::sqrt(2 / M_PI) * (g + 0.044715 * g * g * g)));
    c(f(out[(size_t)t*d+i]), f(static_cast<T>((float)(ge * u))), i);
    c2(f(out2[(size_t)t*d+i]), f(static_cast<T>((float)(gt * u))), i);
  }
}
template <class T> void test_rmsnorm(int Tn, int d, int s, int block, const char* tn, double rtol) {
  auto in = randn<T>((size_t)Tn * s, 3.0);
  auto w = randn<T>(d);
  std::vector<T> out((size_t)Tn * d);
  emu_launch(&rmsnorm<T>, dim3(Tn), dim3(block), out.data(), (const T*)in.data(), s, (const T*)w.data(), 1e-6f, d);
  Cmp c(std::string("rmsnorm<") + tn + "> block " + std::to_string(block), rtol, 1e-5);
  for (int t = 0; t < Tn; ++t) {
    double ss = 0; for (int i = 0; i < d; ++i) ss += f(in[(size_t)t*s+i]) * f(in[(size_t)t*s+i]);
    double inv = 1 / std::sqrt(ss / d + 1e-6);
    for (int i = 0; i < d; ++i) c(f(out[(size_t)t*d+i]), f(static_cast<T>((float)(f(in[(size_t)t*s+i]) * inv * f(w[i])))), i);
  }
}
template <class T> void test_fused(int Tn, int d, const char* tn, double rtol) {
  auto x = randn<T>((size_t)Tn * d), r = randn<T>((size_t)Tn * d), w = randn<T>(d);
  auto x0 = x, r0 = r;
  emu_launch(&fused_add_rmsnorm<T>, dim3(Tn), dim3(1024), x.data(), r.data(), (const T*)w.data(), 1e-5f, d);
  Cmp cr(std::string("fused_add_rmsnorm<") + tn + "> residual", 0, 0);
  Cmp cx(std::string("fused_add_rmsnorm<") + tn + "> out", rtol, 1e-5);
  for (int t = 0; t < Tn; ++t) {
    std::vector<double> nr(d); double ss = 0;
    for (int i = 0; i < d; ++i) { nr[i] = f(static_cast<T>((float)(f(x0[(size_t)t*d+i]) + f(r0[(size_t)t*d+i])))); ss += nr[i]*nr[i]; }
    double inv = 1 / std::sqrt(ss / d + 1e-5);
    for (int i = 0; i < d; ++i) {
      cr(f(r[(size_t)t*d+i]), nr[i], i);
      cx(f(x[(size_t)t*d+i]), f(static_cast<T>((float)(nr[i] * inv * f(w[i])))), i);
    }
  }
}
void test_layernorm(int Tn, int d) {
  auto x = randn<__half>((size_t)Tn * d, 2.0);
  for (auto& v : x) v = __float2half(__half2float(v) + 5.0f);  // nonzero mean
  auto g = randn<float>(d), b = randn<float>(d);
  std::vector<__half> out((size_t)Tn * d);
  launch_layernorm(out.data(), x.data(), g.data(), b.data(), 1e-5f, Tn, d, 0);
  Cmp c("layernorm (host launcher)", 1e-3, 1e-5);
  for (int t = 0; t < Tn; ++t) {
    double m = 0; for (int i = 0; i < d; ++i) m += f(x[(size_t)t*d+i]); m /= d;
    double v = 0; for (int i = 0; i < d; ++i) v += (f(x[(size_t)t*d+i]) - m) * (f(x[(size_t)t*d+i]) - m); v /= d;
    for (int i = 0; i < d; ++i) c(f(out[(size_t)t*d+i]), f(__float2half((float)((f(x[(size_t)t*d+i]) - m) / std::sqrt(v + 1e-5) * g[i] + b[i]))), i);
  }
}
template <class T> void test_rotary(const char* tn, double rtol) {
  const int Tn = 5, H = 4, KH = 2, D = 16, P = 10, qs = (H + 2 * KH) * D, ks = qs;
  std::vector<int64_t> pos(Tn); for (auto& p : pos) p = rng() % P;
  auto q = randn<T>((size_t)Tn * qs), k = randn<T>((size_t)Tn * ks), cache = randn<T>((size_t)P * D, 0.5);
  auto q0 = q, k0 = k;
  emu_launch(&rotary_embedding_neox<T>, dim3(Tn), dim3(std::min(H * D / 2, 512)), (const int64_t*)pos.data(), q.data(), k.data(), (const T*)cache.data(), D, qs, ks, H, KH, D);
  Cmp c(std::string("rotary_embedding_neox<") + tn + ">", rtol, 1e-5);
  auto ref = [&](std::vector<T>& got, std::vector<T>& orig, int stride, int nh) {
    for (int t = 0; t < Tn; ++t) for (int col = 0; col < stride; ++col) {
      size_t o = (size_t)t * stride + col;
      int h = col / D, j = col % D, half = D / 2;
      double want = f(orig[o]);
      if (h < nh) {
        int jj = j % half; double cc = f(cache[pos[t]*D + jj]), ss = f(cache[pos[t]*D + half + jj]);
        double a = f(orig[(size_t)t*stride + h*D + jj]), b = f(orig[(size_t)t*stride + h*D + half + jj]);
        want = f(static_cast<T>((float)(j < half ? a * cc - b * ss : b * cc + a * ss)));
      }
      c(f(got[o]), want, (long)o);
    }
  };
  ref(q, q0, qs, H); ref(k, k0, ks, KH);
}
template <class T> void test_merge(const char* tn, double rtol) {
  const int Tn = 4, H = 3, D = 8;
  auto po = randn<T>(Tn * H * D), so = randn<T>(Tn * H * D);
  auto pl = randn<float>(H * Tn, 3.0), sl = randn<float>(H * Tn, 3.0);
  pl[1] = INFINITY; sl[2] = -INFINITY; pl[3] = INFINITY; sl[3] = INFINITY;  // empty parts
  std::vector<T> out(Tn * H * D); std::vector<float> ol(H * Tn);
  emu_launch(&merge_attn_states<T>, dim3(Tn, H), dim3(D), out.data(), ol.data(), (const T*)po.data(), (const float*)pl.data(), (const T*)so.data(), (const float*)sl.data(), Tn, H, D);
  Cmp c(std::string("merge_attn_states<") + tn + ">", rtol, 1e-5), cl("merge_attn_states lse", 1e-6, 1e-6);
  for (int t = 0; t < Tn; ++t) for (int h = 0; h < H; ++h) {
    double a = pl[h*Tn+t], b = sl[h*Tn+t];
    if (std::isinf(a)) a = -INFINITY; if (std::isinf(b)) b = -INFINITY;
    double m = std::max(a, b), wa = 0, wb = 0, lse = -INFINITY;
    if (m != -INFINITY) { double ea = std::exp(a - m), eb = std::exp(b - m); wa = ea / (ea + eb); wb = eb / (ea + eb); lse = m + std::log(ea + eb); }
    if (std::isinf(lse)) { if (!std::isinf(ol[h*Tn+t])) cl(ol[h*Tn+t], lse, h*Tn+t); else cl(0, 0, 0); }
    else cl(ol[h*Tn+t], lse, h*Tn+t);
    for (int i = 0; i < D; ++i) { size_t o = ((size_t)t*H+h)*D+i; c(f(out[o]), f(static_cast<T>((float)(f(po[o])*wa + f(so[o])*wb))), (long)o); }
  }
}
template <class T> void test_fp8(int Tn, int d, const char* tn) {
  auto x = randn<T>((size_t)Tn * d, 2.0);
  for (int i = 0; i < d; ++i) x[(size_t)(Tn-1)*d+i] = static_cast<T>(0.0f);  // all-zero row
  std::vector<__nv_fp8_e4m3> q((size_t)Tn * d); std::vector<float> sc(Tn);
  emu_launch(&per_token_fp8_quant<T>, dim3(Tn), dim3(1024), q.data(), sc.data(), (const T*)x.data(), d);
  Cmp cs(std::string("per_token_fp8_quant<") + tn + "> scale", 1e-7, 0);
  Cmp cq(std::string("per_token_fp8_quant<") + tn + "> q (exact)", 0, 0);
  Cmp cd(std::string("per_token_fp8_quant<") + tn + "> q*scale vs x", 0.0625, 1e-6);
  for (int t = 0; t < Tn; ++t) {
    double am = 0; for (int i = 0; i < d; ++i) am = std::max(am, std::fabs(f(x[(size_t)t*d+i])));
    float s = std::max((float)am / 448.0f, 1.0f / (448.0f * 512.0f));
    cs(sc[t], s, t);
    for (int i = 0; i < d; ++i) {
      float v = std::min(std::max((float)f(x[(size_t)t*d+i]) / s, -448.0f), 448.0f);
      cq(f(q[(size_t)t*d+i]), f(__nv_fp8_e4m3(v)), i);
      cd(f(q[(size_t)t*d+i]) * sc[t], f(x[(size_t)t*d+i]), i);
    }
  }
}
void test_int8(int Tn, int d, int gs) {
  auto x = randn<__nv_bfloat16>((size_t)Tn * d, 2.0);
  int G = (d + gs - 1) / gs;
  for (int i = 0; i < gs; ++i) x[i] = __float2bfloat16(0.0f);  // all-zero group
  std::vector<int8_t> q((size_t)Tn * d, 99); std::vector<float> sc((size_t)Tn * G);
  emu_launch(&per_token_group_int8_quant, dim3(G, Tn), dim3(gs), q.data(), sc.data(), (const __nv_bfloat16*)x.data(), d, gs);
  Cmp cs("per_token_group_int8_quant scales", 1e-7, 0), cq("per_token_group_int8_quant q (exact)", 0, 0);
  int lo = 0, hi = 0;
  for (int t = 0; t < Tn; ++t) for (int g = 0; g < G; ++g) {
    double am = 0; for (int i = g*gs; i < std::min(d, (g+1)*gs); ++i) am = std::max(am, std::fabs(f(x[(size_t)t*d+i])));
    float s = std::max((float)am, 1e-10f) / 127.0f;
    cs(sc[(size_t)t*G+g], s, t*G+g);
    for (int i = g*gs; i < std::min(d, (g+1)*gs); ++i) {
      float v = std::rint((float)f(x[(size_t)t*d+i]) / s); v = std::min(std::max(v, -128.0f), 127.0f);
      cq(q[(size_t)t*d+i], v, i); lo = std::min(lo, (int)q[(size_t)t*d+i]); hi = std::max(hi, (int)q[(size_t)t*d+i]);
    }
  }
  printf("     int8 range seen [%d, %d]\n", lo, hi);
}
void test_gating(int Tn, int E, int k, int rn, bool ties) {
  auto x = randn<float>((size_t)Tn * E, 2.0);
  if (ties) for (auto& v : x) v = std::round(v);  // many equal logits
  std::vector<float> w((size_t)Tn * k); std::vector<int> ids((size_t)Tn * k);
  emu_launch(&moe_topk_softmax, dim3(Tn), dim3(E), w.data(), ids.data(), (const float*)x.data(), E, k, rn);
  std::string nm = "moe_topk_softmax E=" + std::to_string(E) + " k=" + std::to_string(k) + " rn=" + std::to_string(rn) + (ties ? " ties" : "");
  Cmp ci(nm + " ids", 0, 0), cw(nm + " weights", 1e-5, 1e-6);
  for (int t = 0; t < Tn; ++t) {
    std::vector<int> order(E); for (int e = 0; e < E; ++e) order[e] = e;
    const float* r = &x[(size_t)t*E];
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return r[a] > r[b]; });
    double m = *std::max_element(r, r + E), s = 0; for (int e = 0; e < E; ++e) s += std::exp(r[e] - m);
    double ssel = 0; for (int j = 0; j < k; ++j) ssel += std::exp(r[order[j]] - m) / s;
    for (int j = 0; j < k; ++j) {
      ci(ids[(size_t)t*k+j], order[j], t*k+j);
      double p = std::exp(r[order[j]] - m) / s; if (rn) p /= ssel;
      cw(w[(size_t)t*k+j], p, t*k+j);
    }
  }
}
template <class T> void test_moe_sum(int Tn, int K, int H, const char* tn, double rtol) {
  auto x = randn<T>((size_t)Tn * K * H); std::vector<T> out((size_t)Tn * H);
  emu_launch(&moe_sum_reduce<T>, dim3(2), dim3(96), out.data(), (const T*)x.data(), Tn, K, H, 2.5f);
  Cmp c(std::string("moe_sum_reduce<") + tn + "> (grid-stride)", rtol, 1e-5);
  for (int t = 0; t < Tn; ++t) for (int h = 0; h < H; ++h) {
    double s = 0; for (int j = 0; j < K; ++j) s += f(x[((size_t)t*K+j)*H+h]);
    c(f(out[(size_t)t*H+h]), f(static_cast<T>((float)(s * 2.5))), h);
  }
}
void test_gather() {
  const int n = 37, N = 50, F = 7;
  std::vector<int64_t> idx(n); for (auto& i : idx) i = rng() % N;
  auto x = randn<float>((size_t)N * F); std::vector<float> out((size_t)n * F);
  emu_launch(&gather_rows, dim3((n * F + 255) / 256), dim3(256), out.data(), (const int64_t*)idx.data(), (const float*)x.data(), n, F);
  Cmp c("gather_rows", 0, 0);
  for (int i = 0; i < n; ++i) for (int j = 0; j < F; ++j) c(out[(size_t)i*F+j], x[idx[i]*F+j], i*F+j);
}
template <class I> std::vector<I> make_indptr(int R, int dmin, int dmax) {
  std::vector<I> p(R + 1); p[0] = 0;
  for (int r = 0; r < R; ++r) p[r+1] = p[r] + dmin + rng() % (dmax - dmin + 1);
  return p;
}
void test_segment_mean(int R, int S, int F, int dmin, int dmax) {
  auto ip = make_indptr<int>(R, dmin, dmax);
  std::vector<int> ind((size_t)R * dmax); for (auto& v : ind) v = rng() % S;
  auto x = randn<float>((size_t)S * F); std::vector<float> out((size_t)R * F, NAN);
  emu_launch(&segment_mean_csr, dim3(R), dim3(F), out.data(), (const int*)ip.data(), (const int*)ind.data(), (const float*)x.data(), R, F);
  Cmp c("segment_mean_csr F=" + std::to_string(F) + " deg " + std::to_string(dmin) + ".." + std::to_string(dmax), 1e-5, 1e-5);
  for (int r = 0; r < R; ++r) for (int j = 0; j < F; ++j) {
    double s = 0; for (int e = ip[r]; e < ip[r+1]; ++e) s += x[(size_t)ind[e]*F+j];
    int deg = ip[r+1] - ip[r];
    c(out[(size_t)r*F+j], deg ? s / deg : 0.0, r*F+j);
  }
}
void test_spmm(int R, int S, int F, int dmin, int dmax) {
  auto ip = make_indptr<int64_t>(R, dmin, dmax);
  std::vector<int64_t> ind((size_t)R * dmax); for (auto& v : ind) v = rng() % S;
  std::vector<float> val((size_t)R * dmax); for (auto& v : val) v = 0.5f + (rng() % 1000) / 666.0f;
  auto B = randn<float>((size_t)S * F); std::vector<float> out((size_t)R * F, NAN);
  emu_launch(&spmm_csr, dim3((R + 7) / 8, (F + 31) / 32), dim3(32, 8), out.data(), (const int64_t*)ip.data(), (const int64_t*)ind.data(), (const float*)val.data(), (const float*)B.data(), R, F);
  Cmp c("spmm_csr R=" + std::to_string(R) + " F=" + std::to_string(F), 1e-5, 1e-5);
  for (int r = 0; r < R; ++r) for (int j = 0; j < F; ++j) {
    double s = 0; for (int64_t e = ip[r]; e < ip[r+1]; ++e) s += (double)val[e] * B[ind[e]*F+j];
    c(out[(size_t)r*F+j], s, r*F+j);
  }
}
void test_scatter(int E, int n, int F) {
  std::vector<int64_t> idx(E); for (auto& i : idx) i = rng() % n;
  auto src = randn<float>((size_t)E * F), out = randn<float>((size_t)n * F); auto out0 = out;
  launch_scatter_add(out.data(), idx.data(), src.data(), E, F, 0);
  std::vector<float> out2 = out0;
  emu_launch(&scatter_add, dim3(1), dim3(32), out2.data(), (const int64_t*)idx.data(), (const float*)src.data(), E, F);
  Cmp c("scatter_add (host launcher)", 1e-5, 1e-4), c2("scatter_add (1 block of 32, grid-stride)", 1e-5, 1e-4);
  std::vector<double> ref(out0.begin(), out0.end());
  for (int e = 0; e < E; ++e) for (int j = 0; j < F; ++j) ref[idx[e]*F+j] += src[(size_t)e*F+j];
  for (size_t i = 0; i < ref.size(); ++i) { c(out[i], ref[i], i); c2(out2[i], ref[i], i); }
}

// sage_mean_concat: mean of the neighbour rows, then the node's own row.
template <class T> void test_sage(int R, int S, int F, int dmin, int dmax, const char* tn, double rtol) {
  auto ip = make_indptr<int64_t>(R, dmin, dmax);
  std::vector<int64_t> ind((size_t)R * dmax); for (auto& v : ind) v = rng() % S;
  auto x = randn<T>((size_t)S * F); std::vector<T> out((size_t)R * 2 * F, static_cast<T>(NAN));
  emu_launch(&sage_mean_concat<T>, dim3(R), dim3(128), out.data(), (const int64_t*)ip.data(), (const int64_t*)ind.data(), (const T*)x.data(), R, F);
  Cmp c(std::string("sage_mean_concat<") + tn + "> F=" + std::to_string(F) + " deg " + std::to_string(dmin) + ".." + std::to_string(dmax), rtol, 1e-5);
  for (int r = 0; r < R; ++r) for (int j = 0; j < F; ++j) {
    double s = 0; for (int64_t e = ip[r]; e < ip[r+1]; ++e) s += f(x[(size_t)ind[e]*F+j]);
    int64_t deg = ip[r+1] - ip[r];
    c(f(out[(size_t)r*2*F+j]), f(static_cast<T>((float)(deg ? s / deg : 0.0))), r*2*F+j);
    c(f(out[(size_t)r*2*F+F+j]), f(x[(size_t)r*F+j]), r*2*F+F+j);
  }
}

// neighbor_sample: a host copy of the header's recipe (the same hash, range
// reduction and Floyd's algorithm) must give the same ids bit for bit; and,
// independently of the recipe, each sample is k = min(K, deg) distinct
// neighbours of its node padded with -1, all of them when deg <= K, the same
// for a node each time it is a seed, and every neighbour position about
// equally likely (K/deg) over many nodes of one degree.
static uint64_t h_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static std::vector<int64_t> ref_sample(uint64_t seed, int64_t v, int64_t deg, int K) {
  std::vector<int64_t> p;
  if (deg <= K) { for (int64_t j = 0; j < deg; ++j) p.push_back(j); return p; }
  for (int i = 0; i < K; ++i) {
    int64_t m = deg - K + i;
    uint64_t r = h_mix64(h_mix64(seed ^ h_mix64((uint64_t)v + 0x9e3779b97f4a7c15ULL)) + (uint64_t)i) >> 32;
    int64_t t = (int64_t)((r * (uint64_t)(m + 1)) >> 32);
    if (std::find(p.begin(), p.end(), t) != p.end()) t = m;
    p.push_back(t);
  }
  return p;
}
void test_sample(int B, int N, int dmin, int dmax, int K, uint64_t seed) {
  auto ip = make_indptr<int64_t>(N, dmin, dmax);
  std::vector<int64_t> ind((size_t)N * dmax, 0);
  for (int v = 0; v < N; ++v) {  // distinct sorted ids per row
    std::vector<int64_t> all(N); for (int i = 0; i < N; ++i) all[i] = i;
    std::shuffle(all.begin(), all.end(), rng);
    std::sort(all.begin(), all.begin() + (ip[v+1] - ip[v]));
    std::copy(all.begin(), all.begin() + (ip[v+1] - ip[v]), ind.begin() + ip[v]);
  }
  std::vector<int64_t> seeds(B); for (auto& s : seeds) s = rng() % N;
  seeds[B - 1] = seeds[0];  // a repeated node
  std::vector<int64_t> out((size_t)B * K, -7); std::vector<int> cnt(B, -7);
  emu_launch(&neighbor_sample, dim3((B + 255) / 256), dim3(256), out.data(), cnt.data(), (const int64_t*)ip.data(), (const int64_t*)ind.data(), (const int64_t*)seeds.data(), seed, B, K);
  Cmp c("neighbor_sample B=" + std::to_string(B) + " deg " + std::to_string(dmin) + ".." + std::to_string(dmax) + " K=" + std::to_string(K) + " (recipe)", 0, 0);
  Cmp c2("neighbor_sample B=" + std::to_string(B) + " K=" + std::to_string(K) + " (distinct neighbours, -1 pad)", 0, 0);
  for (int s = 0; s < B; ++s) {
    int64_t v = seeds[s], b = ip[v], deg = ip[v+1] - b;
    auto p = ref_sample(seed, v, deg, K);
    c(cnt[s], (double)p.size(), s);
    for (int j = 0; j < K; ++j) c(out[(size_t)s*K+j], j < (int)p.size() ? ind[b + p[j]] : -1, (long)s*K+j);
    int64_t k = std::min<int64_t>(K, deg);
    std::vector<int64_t> row(ind.begin() + b, ind.begin() + b + deg), got(out.begin() + (size_t)s*K, out.begin() + (size_t)s*K + k);
    std::sort(got.begin(), got.end());
    bool ok = cnt[s] == k && std::adjacent_find(got.begin(), got.end()) == got.end();
    for (int64_t id : got) ok = ok && std::binary_search(row.begin(), row.end(), id);
    if (deg <= K) ok = ok && got == row;
    for (int j = k; j < K; ++j) ok = ok && out[(size_t)s*K+j] == -1;
    c2(ok ? 1 : 0, 1, s);
  }
  Cmp c3("neighbor_sample repeated node, same sample", 0, 0);
  for (int j = 0; j < K; ++j) c3(out[(size_t)(B-1)*K+j], out[j], j);
}
void test_sample_uniform() {
  // N nodes of degree D whose row j holds id j: the output ids are the
  // positions; each should be drawn about N*K/D times (sd about 20 here).
  const int N = 2000, D = 20, K = 5;
  std::vector<int64_t> ip(N + 1), ind((size_t)N * D), seeds(N);
  for (int v = 0; v <= N; ++v) ip[v] = (int64_t)v * D;
  for (size_t e = 0; e < ind.size(); ++e) ind[e] = e % D;
  for (int v = 0; v < N; ++v) seeds[v] = v;
  std::vector<int64_t> out((size_t)N * K); std::vector<int> cnt(N);
  emu_launch(&neighbor_sample, dim3((N + 255) / 256), dim3(256), out.data(), cnt.data(), (const int64_t*)ip.data(), (const int64_t*)ind.data(), (const int64_t*)seeds.data(), (uint64_t)99, N, K);
  std::vector<int> hits(D, 0); for (int64_t id : out) ++hits[id];
  const double want = (double)N * K / D;
  Cmp c("neighbor_sample uniformity, 2000 nodes of degree 20, K=5", 0, 5 * std::sqrt(want * (1 - (double)K / D)));
  for (int j = 0; j < D; ++j) c(hits[j], want, j);
}

int main() {
  test_silu<__half>(3, 1000, "__half", 1e-3);
  test_silu<__nv_bfloat16>(2, 2500, "__nv_bfloat16", 8e-3);
  { std::vector<__half> in(2 * 2 * 3000), out(2 * 3000); for (size_t i = 0; i < in.size(); ++i) in[i] = __float2half((float)((int)i % 17 - 8) / 4);
    launch_silu_and_mul_f16(out.data(), in.data(), 2, 3000, 0);
    Cmp c("silu_and_mul host launcher f16", 1e-3, 1e-5);
    for (int t = 0; t < 2; ++t) for (int i = 0; i < 3000; ++i) { double g = f(in[t*6000+i]), u = f(in[t*6000+3000+i]); c(f(out[t*3000+i]), f(__float2half((float)(g/(1+std::exp(-g))*u))), i); } }
  test_gelu<__half>(3, 700, "__half", 1e-3);
  test_gelu<__nv_bfloat16>(2, 333, "__nv_bfloat16", 8e-3);
  test_rmsnorm<__half>(3, 1500, 2000, 1024, "__half", 1e-3);
  test_rmsnorm<__nv_bfloat16>(2, 1500, 1500, 256, "__nv_bfloat16", 8e-3);
  test_fused<__nv_bfloat16>(3, 1500, "__nv_bfloat16", 8e-3);
  test_fused<__half>(2, 4096, "__half", 1e-3);
  test_layernorm(3, 1500);
  test_rotary<__nv_bfloat16>("__nv_bfloat16", 8e-3);
  test_rotary<__half>("__half", 1e-3);
  test_merge<__half>("__half", 1e-3);
  test_merge<__nv_bfloat16>("__nv_bfloat16", 8e-3);
  test_fp8<__nv_bfloat16>(3, 1500, "__nv_bfloat16");
  test_fp8<__half>(2, 4096, "__half");
  test_int8(3, 300, 128);
  test_gating(6, 8, 2, 1, false);
  test_gating(6, 64, 6, 0, false);
  test_gating(4, 60, 6, 1, false);
  test_gating(6, 64, 8, 1, true);
  test_gating(2, 512, 10, 1, true);
  test_moe_sum<__nv_bfloat16>(3, 8, 100, "__nv_bfloat16", 8e-3);
  test_moe_sum<__half>(2, 2, 77, "__half", 1e-3);
  test_gather();
  test_segment_mean(9, 40, 5, 0, 4);
  test_segment_mean(4, 40, 256, 15, 15);
  test_spmm(20, 30, 40, 0, 5);
  test_spmm(3, 30, 256, 1, 10);
  test_scatter(40, 5, 6);
  test_sage<float>(9, 40, 5, 0, 4, "float", 1e-5);
  test_sage<float>(4, 40, 300, 10, 10, "float", 1e-5);
  test_sage<__nv_bfloat16>(5, 30, 130, 0, 6, "__nv_bfloat16", 8e-3);
  test_sample(300, 64, 0, 32, 15, 20261123);
  test_sample(100, 500, 100, 400, 15, 7);
  test_sample(257, 40, 0, 8, 5, 1);
  test_sample_uniform();
  printf("%d checks, %d failed\n", checks, failures);
  return failures != 0;
}
