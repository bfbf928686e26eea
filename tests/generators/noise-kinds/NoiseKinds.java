// An independent Java implementation of terrafit's seeded base noises, from
// their definitions in docs/noise.md (not from the C): hash, seeded "perlin",
// "exponential-perlin", "polynomial", "value" and "cellular" (brute force over
// the 5x5 cells around the sample, which always contain the two nearest
// points). Used by Vectors.java to produce the cross-check vectors.
public final class NoiseKinds {
    static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x21f0aaad;
        h ^= h >>> 15;
        h *= 0x735a2d97;
        h ^= h >>> 15;
        return h;
    }

    static int H(int h, int c) { return mix((h ^ c) + 0x9e3779b9); }

    static int hash2(int seed, int i, int j) { return H(H(H(0, seed), i), j); }

    static int hash3(int seed, int i, int j, int k) { return H(hash2(seed, i, j), k); }

    // Lattice cell of c modulo 2^32, as Java's long-to-int narrowing does.
    static int cell(double c) { return (int) (long) Math.floor(c); }

    static double corner(int h) { return (h >>> 8) * 0x1p-23 - 1.0; }

    static double perlin(int seed, double x, double y, double z) {
        int ox = 0, oy = 0, oz = 0;
        if (seed != 0) {
            int h = H(0, seed);
            ox = H(h, 1) & 255;
            oy = H(h, 2) & 255;
            oz = H(h, 3) & 255;
        }
        int X = (cell(x) + ox) & 255, Y = (cell(y) + oy) & 255, Z = (cell(z) + oz) & 255;
        x -= Math.floor(x);
        y -= Math.floor(y);
        z -= Math.floor(z);
        // ImprovedNoise.noise from its hashing step on, with the shifted cell.
        int[] p = ImprovedNoise.p;
        double u = ImprovedNoise.fade(x), v = ImprovedNoise.fade(y), w = ImprovedNoise.fade(z);
        int A = p[X] + Y, AA = p[A] + Z, AB = p[A + 1] + Z;
        int B = p[X + 1] + Y, BA = p[B] + Z, BB = p[B + 1] + Z;
        return ImprovedNoise.lerp(w,
            ImprovedNoise.lerp(v,
                ImprovedNoise.lerp(u, ImprovedNoise.grad(p[AA], x, y, z),
                                      ImprovedNoise.grad(p[BA], x - 1, y, z)),
                ImprovedNoise.lerp(u, ImprovedNoise.grad(p[AB], x, y - 1, z),
                                      ImprovedNoise.grad(p[BB], x - 1, y - 1, z))),
            ImprovedNoise.lerp(v,
                ImprovedNoise.lerp(u, ImprovedNoise.grad(p[AA + 1], x, y, z - 1),
                                      ImprovedNoise.grad(p[BA + 1], x - 1, y, z - 1)),
                ImprovedNoise.lerp(u, ImprovedNoise.grad(p[AB + 1], x, y - 1, z - 1),
                                      ImprovedNoise.grad(p[BB + 1], x - 1, y - 1, z - 1))));
    }

    static double magnitude(int i) {
        double m = 1;
        for (int k = 0; k < i; k++)
            m /= 1.02;
        return m;
    }

    static double expPerlin(int seed, double x, double y, double z) {
        int X = cell(x), Y = cell(y), Z = cell(z);
        double fx = x - Math.floor(x), fy = y - Math.floor(y), fz = z - Math.floor(z);
        double[] c = new double[8];
        for (int k = 0; k < 8; k++) {
            int i = k & 1, j = (k >> 1) & 1, l = (k >> 2) & 1;
            int h = hash3(seed, X + i, Y + j, Z + l);
            c[k] = magnitude(h >>> 24) * ImprovedNoise.grad(h, fx - i, fy - j, fz - l);
        }
        double u = ImprovedNoise.fade(fx), v = ImprovedNoise.fade(fy), w = ImprovedNoise.fade(fz);
        return ImprovedNoise.lerp(w,
            ImprovedNoise.lerp(v, ImprovedNoise.lerp(u, c[0], c[1]), ImprovedNoise.lerp(u, c[2], c[3])),
            ImprovedNoise.lerp(v, ImprovedNoise.lerp(u, c[4], c[5]), ImprovedNoise.lerp(u, c[6], c[7])));
    }

    static double value(int seed, double x, double y) {
        int X = cell(x), Y = cell(y);
        double fx = x - Math.floor(x), fy = y - Math.floor(y);
        double v00 = corner(hash2(seed, X, Y)), v10 = corner(hash2(seed, X + 1, Y));
        double v01 = corner(hash2(seed, X, Y + 1)), v11 = corner(hash2(seed, X + 1, Y + 1));
        double u = ImprovedNoise.fade(fx), v = ImprovedNoise.fade(fy);
        double a = ImprovedNoise.lerp(u, v00, v10), b = ImprovedNoise.lerp(u, v01, v11);
        return ImprovedNoise.lerp(v, a, b);
    }

    static double s3(double t) { return t * t * (3 - 2 * t); }

    static double polynomial(int seed, double x, double y) {
        int X = cell(x), Y = cell(y);
        double fx = x - Math.floor(x), fy = y - Math.floor(y);
        double h00 = corner(hash2(seed, X, Y)), h10 = corner(hash2(seed, X + 1, Y));
        double h01 = corner(hash2(seed, X, Y + 1)), h11 = corner(hash2(seed, X + 1, Y + 1));
        double dX = h10 - h00, dY = h01 - h00, A = h11 + h00 - h10 - h01;
        double sx = s3(fx), sy = s3(fy);
        return h00 + sx * dX + sy * dY + A * (sx * fy + sy * fx - fx * fy);
    }

    // {F1, F2}
    static double[] cellular(int seed, double x, double y) {
        int X = cell(x), Y = cell(y);
        double fx = x - Math.floor(x), fy = y - Math.floor(y);
        double d1 = Double.POSITIVE_INFINITY, d2 = Double.POSITIVE_INFINITY;
        for (int di = -2; di <= 2; di++)
            for (int dj = -2; dj <= 2; dj++) {
                int h = hash2(seed, X + di, Y + dj);
                double rx = (di + ((h & 0xffff) + 0.5) * 0x1p-16) - fx;
                double ry = (dj + ((h >>> 16) + 0.5) * 0x1p-16) - fy;
                double d = rx * rx + ry * ry;
                if (d < d1) {
                    d2 = d1;
                    d1 = d;
                } else if (d < d2) {
                    d2 = d;
                }
            }
        return new double[] {Math.sqrt(d1), Math.sqrt(d2)};
    }
}
