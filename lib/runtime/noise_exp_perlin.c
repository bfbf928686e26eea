/*
 * "exponential-perlin": Parberry's Perlin noise with exponentially
 * distributed gradient magnitudes ("Modeling Real-World Terrain with
 * Exponentially Distributed Noise", 2015), 3D, seeded by the lattice hash.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "noise.h"
#include "noise_kinds.h"

/* Parberry's magnitude table m[i] = mu^i with 0 < mu <= 1, here mu = 1/1.02:
 * m[0] = 1 and m[i] = m[i-1] / 1.02 (one IEEE division per entry, so the
 * table is itself exactly reproducible; printed with %a by
 * scripts/regenerate-vectors.sh and checked by tests/check_noise_kinds).
 * m[255] = 1.02^-255 ~ 0.00641. */
const double tf_exp_perlin_magnitude[256] = {
    0x1p+0, 0x1.f5f5f5f5f5f5fp-1, 0x1.ec1e5082b4e71p-1,
    0x1.e27812b25700ap-1, 0x1.d9024486afa64p-1, 0x1.cfbbf2de65ee4p-1,
    0x1.c6a42f5c8c16cp-1, 0x1.bdba1050b17fbp-1, 0x1.b4fcb09f6cc37p-1,
    0x1.ac6b2fab5b927p-1, 0x1.a404b13e96030p-1, 0x1.9bc85d7493120p-1,
    0x1.93b560a47c1bbp-1, 0x1.8bcaeb4bed203p-1, 0x1.840831fa1fb12p-1,
    0x1.7c6c6d3b7e717p-1, 0x1.74f6d9859f19ep-1, 0x1.6da6b723a1004p-1,
    0x1.667b4a22ee286p-1, 0x1.5f73da405cf06p-1, 0x1.588fb2d5b0733p-1,
    0x1.51ce22c775c64p-1, 0x1.4b2e7c733c3fep-1, 0x1.44b0159e26fd6p-1,
    0x1.3e524763d5e95p-1, 0x1.38146e25a48a6p-1, 0x1.31f5e97a3cec1p-1,
    0x1.2bf61c1d7cfb8p-1, 0x1.26146be0acba5p-1, 0x1.2050419b03b1ap-1,
    0x1.1aa9091a7c179p-1, 0x1.151e3114f2212p-1, 0x1.0faf2b198e026p-1,
    0x1.0a5b6b8277257p-1, 0x1.05226966cf29bp-1, 0x1.00039e8cf341fp-1,
    0x1.f5fd0eba0521fp-2, 0x1.ec2545a750537p-2, 0x1.e27ee4ea4ec04p-2,
    0x1.d908f4815239fp-2, 0x1.cfc2814791de7p-2, 0x1.c6aa9cdcc1347p-2,
    0x1.bdc05d8d21cf0p-2, 0x1.b502de3a0d113p-2, 0x1.ac713e42f3b68p-2,
    0x1.a40aa16ed0d10p-2, 0x1.9bce2fd60dfa1p-2, 0x1.93bb15ccd67cbp-2,
    0x1.8bd083cdd74d1p-2, 0x1.840dae6569aafp-2, 0x1.7c71ce1d26574p-2,
    0x1.74fc1f67df508p-2, 0x1.6dabe28dfe12bp-2, 0x1.66805b9a4462ap-2,
    0x1.5f78d246edb60p-2, 0x1.589491eb2f531p-2, 0x1.51d2e969154c7p-2,
    0x1.4b332b1bba873p-2, 0x1.44b4acc5da020p-2, 0x1.3e56c780b79d9p-2,
    0x1.3818d7ab5eae9p-2, 0x1.31fa3cda34ab2p-2, 0x1.2bfa59c6de4d7p-2,
    0x1.26189440758d3p-2, 0x1.2054551c0edacp-2, 0x1.1aad08258c0dbp-2,
    0x1.15221c10bb80ep-2, 0x1.0fb3026ac1ddbp-2, 0x1.0a5f2f8bcd1fap-2,
    0x1.05261a890f604p-2, 0x1.00073d2700040p-2, 0x1.f6042797c3cbap-3,
    0x1.ec2c3ae51a4f2p-3, 0x1.e285b73af6a7fp-3, 0x1.d90fa49429090p-3,
    0x1.cfc90fc8788b5p-3, 0x1.c6b10a7439f20p-3, 0x1.bdc6aae060f75p-3,
    0x1.b5090beb09bb4p-3, 0x1.ac774cf077f8dp-3, 0x1.a41091b489b2bp-3,
    0x1.9bd4024c9b139p-3, 0x1.93c0cb09d94a6p-3, 0x1.8bd61c640234dp-3,
    0x1.84132ae48eb64p-3, 0x1.7c772f1245a3ap-3, 0x1.7501655d35370p-3,
    0x1.6db10e0b1108cp-3, 0x1.66856d23f2952p-3, 0x1.5f7dca5f7a600p-3,
    0x1.589971124fd19p-3, 0x1.51d7b01bfdf09p-3, 0x1.4b37d9d52b281p-3,
    0x1.44b943fe2a4f7p-3, 0x1.3e5b47ade334cp-3, 0x1.381d414110f27p-3,
    0x1.31fe9049d4612p-3, 0x1.2bfe977f98ffdp-3, 0x1.261cbcaf4ab48p-3,
    0x1.205868abdacf1p-3, 0x1.1ab1073f12c0fp-3, 0x1.1526071ab3037p-3,
    0x1.0fb6d9c9dcae1p-3, 0x1.0a62f3a2c4464p-3, 0x1.0529cbb8ac58fp-3,
    0x1.000adbce26755p-3, 0x1.f60b408f324f7p-4, 0x1.ec33303c1334cp-4,
    0x1.e28c89a44f109p-4, 0x1.d91654bf346a9p-4, 0x1.cfcf9e611a4a6p-4,
    0x1.c6b77822f6a34p-4, 0x1.bdccf84a6f4abp-4, 0x1.b50f39b263120p-4,
    0x1.ac7d5bb3e8a84p-4, 0x1.a416820fc0f54p-4, 0x1.9bd9d4d83aaa3p-4,
    0x1.93c6805b84cf0p-4, 0x1.8bdbb50e6e204p-4, 0x1.8418a7778f1a9p-4,
    0x1.7c7c901adc9c9p-4, 0x1.7506ab65a111fp-4, 0x1.6db6399ada25bp-4,
    0x1.668a7ebff901dp-4, 0x1.5f82c28a032efp-4, 0x1.589e504b122e0p-4,
    0x1.51dc76e02ff0ep-4, 0x1.4b3c889f8e5fap-4, 0x1.44bddb4718218p-4,
    0x1.3e5fc7eb58e9ap-4, 0x1.3821aae6bb8fbp-4, 0x1.3202e3c91c469p-4,
    0x1.2c02d547ad4a3p-4, 0x1.2620e52d2c66ep-4, 0x1.205c7c4a67c44p-4,
    0x1.1ab5066710661p-4, 0x1.1529f232d8dc8p-4, 0x1.0fbab136dea60p-4,
    0x1.0a66b7c75ccaep-4, 0x1.052d7cf5a6446p-4, 0x1.000e7a8266c59p-4,
    0x1.f61259a0510aep-5, 0x1.ec3a25ac3b600p-5, 0x1.e2935c2658541p-5,
    0x1.d91d050274b6dp-5, 0x1.cfd62d117771fp-5, 0x1.c6bde5e8f79cep-5,
    0x1.bdd345cb4d1c5p-5, 0x1.b515679019671p-5, 0x1.ac836a8d4614cp-5,
    0x1.a41c728076e73p-5, 0x1.9bdfa778ed0adp-5, 0x1.93cc35c1d955ep-5,
    0x1.8be14dcd1b593p-5, 0x1.841e241e6b203p-5, 0x1.7c81f136eb88fp-5,
    0x1.750bf1812326ep-5, 0x1.6dbb653d59adap-5, 0x1.668f906e57eb7p-5,
    0x1.5f87bac688645p-5, 0x1.58a32f9576a8ap-5, 0x1.51e13db5ab8c3p-5,
    0x1.4b41377ae46b5p-5, 0x1.44c272a0a3b48p-5, 0x1.3e64483918f74p-5,
    0x1.3826149c5ec03p-5, 0x1.320737580c944p-5, 0x1.2c07131f1b643p-5,
    0x1.26250dba1adabp-5, 0x1.20608ff7b5ef8p-5, 0x1.1ab9059d85311p-5,
    0x1.152ddd592d3f2p-5, 0x1.0fbe88b1c7f7ap-5, 0x1.0a6a7bf996debp-5,
    0x1.05312e3ffd52dp-5, 0x1.00121943c1240p-5, 0x1.f61972cb205abp-6,
    0x1.ec411b35932bcp-6, 0x1.e29a2ec112cb8p-6, 0x1.d923b55dea450p-6,
    0x1.cfdcbbd99057bp-6, 0x1.c6c453c63d32dp-6, 0x1.bdd99362fabe6p-6,
    0x1.b51b95842d0afp-6, 0x1.ac89797c908d4p-6, 0x1.a4226306abd5cp-6,
    0x1.9be57a2eb2814p-6, 0x1.93d1eb3cd7296p-6, 0x1.8be6e6a00a289p-6,
    0x1.8423a0d9230ebp-6, 0x1.7c87526672af0p-6, 0x1.751137afbbbaap-6,
    0x1.6dc090f28fe42p-6, 0x1.6694a22f0f946p-6, 0x1.5f8cb3150a412p-6,
    0x1.58a80ef17d812p-6, 0x1.51e6049c71012p-6, 0x1.4b45e6672d88ap-6,
    0x1.44c70a0acd44bp-6, 0x1.3e68c8972398bp-6, 0x1.382a7e61fabdep-6,
    0x1.320b8af6a582fp-6, 0x1.2c0b5105e3856p-6, 0x1.2629365616468p-6,
    0x1.2064a3b3c5866p-6, 0x1.1abd04e271569p-6, 0x1.1531c88db05eep-6,
    0x1.0fc2603a98d58p-6, 0x1.0a6e403972b33p-6, 0x1.0534df97b1b4bp-6,
    0x1.0015b81235c03p-6, 0x1.f6208c0fa09bfp-7, 0x1.ec4810d81af34p-7,
    0x1.e2a101747ed06p-7, 0x1.d92a65d1956cfp-7, 0x1.cfe34ab96551bp-7,
    0x1.c6cac1bac7b98p-7, 0x1.bddfe1117883bp-7, 0x1.b521c38e9e4eep-7,
    0x1.ac8f8881c8616p-7, 0x1.a42853a2600f2p-7, 0x1.9beb4cf98b5a2p-7,
    0x1.93d7a0cc7e949p-7, 0x1.8bec7f873ad7fp-7, 0x1.84291da7b72e1p-7,
    0x1.7c8cb3a972555p-7, 0x1.75167df16b126p-7, 0x1.6dc5bcba7d0d0p-7,
    0x1.6699b402203efp-7, 0x1.5f91ab7589068p-7, 0x1.58acee5f26f75p-7,
    0x1.51eacb94808e1p-7, 0x1.4b4a956469f4bp-7, 0x1.44cba185950e0p-7,
    0x1.3e6d49057908bp-7, 0x1.382ee8378fc24p-7, 0x1.320fdea4e74b0p-7,
    0x1.2c0f8efc05e52p-7, 0x1.262d5f011ee0ap-7, 0x1.2068b77e96be2p-7,
    0x1.1ac10435d50abp-7, 0x1.1535b3d0626eep-7, 0x1.0fc637d15171bp-7,
    0x1.0a720486f0798p-7, 0x1.053890fcc39a4p-7, 0x1.001956edc4c97p-7,
    0x1.f627a56dd22b9p-8, 0x1.ec4f0693d311ap-8, 0x1.e2a7d4409cbbfp-8,
    0x1.d931165d76861p-8, 0x1.cfe9d9b0f6b5ap-8, 0x1.c6d12fc69784ep-8,
    0x1.bde62ed6c6be8p-8, 0x1.b527f1af6d839p-8, 0x1.ac95979cede06p-8,
    0x1.a42e445393e10p-8,
};

/* Corner (X+i, Y+j, Z+k): h = hash(seed, X+i, Y+j, Z+k); direction h & 15
 * (Perlin 2002 grad), magnitude m[h >> 24], term m * grad. */
NK_INLINE double exp_perlin_eval(uint32_t seed, double x, double y, double z, double *dx,
                                     double *dy)
{
    if (!nk_coord_ok(x) || !nk_coord_ok(y) || !nk_coord_ok(z))
        return nk_nan(dx, dy);
    double fx, fy, fz;
    uint32_t X = nk_split(x, &fx), Y = nk_split(y, &fy), Z = nk_split(z, &fz);
    double u = nk_fade5(fx), v = nk_fade5(fy), w = nk_fade5(fz);
    double du = nk_dfade5(fx), dv = nk_dfade5(fy);
    uint32_t hs = nk_hash(0, seed);
    uint32_t hx[2] = {nk_hash(hs, X), nk_hash(hs, X + 1)};
    nk_vd c[8];
    for (int k = 0; k < 8; k++) {
        uint32_t i = k & 1, j = (k >> 1) & 1, l = (k >> 2) & 1;
        uint32_t h = nk_hash(nk_hash(hx[i], Y + j), Z + l);
        double m = tf_exp_perlin_magnitude[h >> 24];
        double gx, gy;
        double g = nk_grad3(h, i ? fx - 1 : fx, j ? fy - 1 : fy, l ? fz - 1 : fz, &gx, &gy);
        c[k].v = m * g;
        c[k].dx = m * gx;
        c[k].dy = m * gy;
    }
    return nk_blend3(c, u, du, v, dv, w, dx, dy);
}

const double *tf_exp_perlin_magnitude_table(void)
{
    return tf_exp_perlin_magnitude;
}

double tf_exp_perlin3(uint32_t seed, double x, double y, double z)
{
    return exp_perlin_eval(seed, x, y, z, NULL, NULL);
}

double tf_exp_perlin3_deriv(uint32_t seed, double x, double y, double z, double *dx, double *dy)
{
    return exp_perlin_eval(seed, x, y, z, dx, dy);
}

#if TF_HAVE_AVX2_PATH
/* exp_perlin_eval (no derivatives) for four points of a row, |x| < 2^51:
 * the scalar hashes and operations lane by lane; the row's y and z cells,
 * fractions and fades are shared. */
NK_AVX2_INLINE __m256d exp_perlin4_avx2(uint32_t hs, __m256d x, uint32_t Y, uint32_t Z,
                                        double fy, double fz, double v, double w)
{
    __m256d fx;
    __m128i X = nk_split_avx2(x, &fx);
    const __m128i vhs = _mm_set1_epi32((int)hs);
    const __m128i hx[2] = {nk_hash_avx2(vhs, X),
                           nk_hash_avx2(vhs, _mm_add_epi32(X, _mm_set1_epi32(1)))};
    const __m128i vY[2] = {_mm_set1_epi32((int)Y), _mm_set1_epi32((int)(Y + 1u))};
    const __m128i vZ[2] = {_mm_set1_epi32((int)Z), _mm_set1_epi32((int)(Z + 1u))};
    const __m256d cx[2] = {fx, _mm256_sub_pd(fx, _mm256_set1_pd(1.0))};
    const __m256d cy[2] = {_mm256_set1_pd(fy), _mm256_set1_pd(fy - 1)};
    const __m256d cz[2] = {_mm256_set1_pd(fz), _mm256_set1_pd(fz - 1)};
    __m256d c[8];
    for (int k = 0; k < 8; k++) {
        int i = k & 1, j = (k >> 1) & 1, l = (k >> 2) & 1;
        __m128i h = nk_hash_avx2(nk_hash_avx2(hx[i], vY[j]), vZ[l]);
        __m256d m = _mm256_i32gather_pd(tf_exp_perlin_magnitude, _mm_srli_epi32(h, 24), 8);
        c[k] = _mm256_mul_pd(m, nk_grad3_avx2(h, cx[i], cy[j], cz[l]));
    }
    return nk_blend3_avx2(c, nk_fade5_avx2(fx), _mm256_set1_pd(v), _mm256_set1_pd(w));
}

TF_AVX2_ROW void tf_exp_perlin3_row_avx2(uint32_t seed, const double *x, double y, double z,
                                         size_t n, double *out)
{
    size_t m = 0;
    if (nk_coord_ok(y) && nk_coord_ok(z)) {
        double fy, fz;
        uint32_t Y = nk_split(y, &fy), Z = nk_split(z, &fz);
        double v = nk_fade5(fy), w = nk_fade5(fz);
        uint32_t hs = nk_hash(0, seed);
        for (; m + 4 <= n; m += 4) {
            __m256d px = _mm256_loadu_pd(x + m);
            if (nk_in_row_range_avx2(px) != 0xF) {
                for (size_t k = m; k < m + 4; k++)
                    out[k] = tf_exp_perlin3(seed, x[k], y, z);
                continue;
            }
            _mm256_storeu_pd(out + m, exp_perlin4_avx2(hs, px, Y, Z, fy, fz, v, w));
        }
    }
    for (; m < n; m++) /* the last 1-3 points, or a row out of range */
        out[m] = tf_exp_perlin3(seed, x[m], y, z);
}
#endif

#if TF_HAVE_AVX512_PATH
/* exp_perlin4_avx2 on eight lanes: the same hashes and operations. */
NK_AVX512_INLINE __m512d exp_perlin8_avx512(uint32_t hs, __m512d x, uint32_t Y, uint32_t Z,
                                            double fy, double fz, double v, double w)
{
    __m512d fx;
    __m256i X = nk_split_avx512(x, &fx);
    const __m256i vhs = _mm256_set1_epi32((int)hs);
    const __m256i hx[2] = {nk_hash_avx512(vhs, X),
                           nk_hash_avx512(vhs, _mm256_add_epi32(X, _mm256_set1_epi32(1)))};
    const __m256i vY[2] = {_mm256_set1_epi32((int)Y), _mm256_set1_epi32((int)(Y + 1u))};
    const __m256i vZ[2] = {_mm256_set1_epi32((int)Z), _mm256_set1_epi32((int)(Z + 1u))};
    const __m512d cx[2] = {fx, _mm512_sub_pd(fx, _mm512_set1_pd(1.0))};
    const __m512d cy[2] = {_mm512_set1_pd(fy), _mm512_set1_pd(fy - 1)};
    const __m512d cz[2] = {_mm512_set1_pd(fz), _mm512_set1_pd(fz - 1)};
    __m512d c[8];
    for (int k = 0; k < 8; k++) {
        int i = k & 1, j = (k >> 1) & 1, l = (k >> 2) & 1;
        __m256i h = nk_hash_avx512(nk_hash_avx512(hx[i], vY[j]), vZ[l]);
        __m512d m = _mm512_i32gather_pd(_mm256_srli_epi32(h, 24), tf_exp_perlin_magnitude, 8);
        c[k] = _mm512_mul_pd(m, nk_grad3_avx512(h, cx[i], cy[j], cz[l]));
    }
    return nk_blend3_avx512(c, nk_fade5_avx512(fx), _mm512_set1_pd(v), _mm512_set1_pd(w));
}

__attribute__((target(NK_AVX512_TARGET))) void
tf_exp_perlin3_row_avx512(uint32_t seed, const double *x, double y, double z, size_t n,
                          double *out)
{
    size_t m = 0;
    if (nk_coord_ok(y) && nk_coord_ok(z)) {
        double fy, fz;
        uint32_t Y = nk_split(y, &fy), Z = nk_split(z, &fz);
        double v = nk_fade5(fy), w = nk_fade5(fz);
        uint32_t hs = nk_hash(0, seed);
        for (; m + 8 <= n; m += 8) {
            __m512d px = _mm512_loadu_pd(x + m);
            if (nk_in_row_range_avx512(px) != 0xFF) {
                for (size_t k = m; k < m + 8; k++)
                    out[k] = tf_exp_perlin3(seed, x[k], y, z);
                continue;
            }
            _mm512_storeu_pd(out + m, exp_perlin8_avx512(hs, px, Y, Z, fy, fz, v, w));
        }
    }
    if (m < n) /* the last 1-7 points, or a row out of range */
        tf_exp_perlin3_row_avx2(seed, x + m, y, z, n - m, out + m);
}
#endif

#if TF_HAVE_AVX512_PATH
/* exp_perlin_eval at eight points (x, y, z) of their own, |x|, |y| <
 * 2^51, each lane's seed hashed in hs, z's cell vZ, fraction fz and fade
 * w, with the derivatives when dx is not NULL (then dy too): the scalar
 * hashes and operations lane by lane. (unused: nk_points8z_fn's second
 * constant, which perlin's kernel takes) */
NK_AVX512_INLINE __m512d exp_perlin8_points_avx512(__m256i hs, __m256i unused, __m256i vZ,
                                                   __m512d fz, __m512d w, __m512d x, __m512d y,
                                                   __m512d *dx, __m512d *dy)
{
    (void)unused;
    __m512d fx, fy;
    __m256i X = nk_split_avx512(x, &fx), Y = nk_split_avx512(y, &fy);
    const __m256i one_i = _mm256_set1_epi32(1);
    const __m256i hx[2] = {nk_hash_avx512(hs, X), nk_hash_avx512(hs, _mm256_add_epi32(X, one_i))};
    const __m256i vY[2] = {Y, _mm256_add_epi32(Y, one_i)};
    const __m256i Zs[2] = {vZ, _mm256_add_epi32(vZ, one_i)};
    const __m512d one = _mm512_set1_pd(1.0);
    const __m512d cx[2] = {fx, _mm512_sub_pd(fx, one)};
    const __m512d cy[2] = {fy, _mm512_sub_pd(fy, one)};
    const __m512d cz[2] = {fz, _mm512_sub_pd(fz, one)};
    nk_vd8 c[8];
    for (int k = 0; k < 8; k++) {
        int i = k & 1, j = (k >> 1) & 1, l = (k >> 2) & 1;
        __m256i h = nk_hash_avx512(nk_hash_avx512(hx[i], vY[j]), Zs[l]);
        __m512d m = _mm512_i32gather_pd(_mm256_srli_epi32(h, 24), tf_exp_perlin_magnitude, 8);
        c[k].v = _mm512_mul_pd(m, nk_grad3_avx512(h, cx[i], cy[j], cz[l]));
        if (dx) {
            __m512d gx, gy;
            nk_grad3_dir_avx512(h, &gx, &gy);
            c[k].dx = _mm512_mul_pd(m, gx);
            c[k].dy = _mm512_mul_pd(m, gy);
        }
    }
    if (!dx) {
        const __m512d v[8] = {c[0].v, c[1].v, c[2].v, c[3].v, c[4].v, c[5].v, c[6].v, c[7].v};
        return nk_blend3_avx512(v, nk_fade5_avx512(fx), nk_fade5_avx512(fy), w);
    }
    return nk_blend3_vd_avx512(c, nk_fade5_avx512(fx), nk_dfade5_avx512(fx), nk_fade5_avx512(fy),
                               nk_dfade5_avx512(fy), w, dx, dy);
}

/* exp-perlin's plane (nk_plane_fn): the seed's hash, z's cell. */
NK_AVX512_INLINE void exp_perlin_plane(uint32_t seed, double z, __m256i *hs, __m256i *unused,
                                       __m256i *vZ, double *fz)
{
    *hs = _mm256_set1_epi32((int)nk_hash(0, seed));
    *unused = _mm256_setzero_si256();
    *vZ = _mm256_set1_epi32((int)nk_split(z, fz));
}

/* exp_perlin_eval at n points (x[k], y[k], z) of their own, eight a
 * vector, with the derivatives when dx is not NULL (then dy too). */
__attribute__((target(NK_AVX512_TARGET))) void
tf_exp_perlin3_points_deriv_avx512(uint32_t seed, const double *x, const double *y, double z,
                                   size_t n, double *out, double *dx, double *dy)
{
    nk_points3_avx512(exp_perlin_plane, exp_perlin8_points_avx512, tf_exp_perlin3_deriv, seed, x,
                      y, z, n, out, dx, dy);
}

/* tf_exp_perlin3(seed[k], x[k], y[k], z[k]) for eight lanes, |x|, |y|,
 * |z| < 2^51. */
__attribute__((target(NK_AVX512_TARGET))) void
tf_exp_perlin3_seeds8_avx512(const uint32_t *seed, const double *x, const double *y,
                             const double *z, double *out)
{
    __m256i hs = nk_seeds_avx512(_mm256_loadu_si256((const __m256i *)(const void *)seed));
    __m512d fz;
    __m256i Z = nk_split_avx512(_mm512_loadu_pd(z), &fz);
    _mm512_storeu_pd(out, exp_perlin8_points_avx512(hs, hs, Z, fz, nk_fade5_avx512(fz),
                                                    _mm512_loadu_pd(x), _mm512_loadu_pd(y),
                                                    NULL, NULL));
}
#endif
