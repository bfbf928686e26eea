// Prints the reference vectors of tests/data/noise/kinds_java.txt: Perlin's
// ImprovedNoise (seed 0 of "perlin") at 1200 points, then every seeded kind
// from NoiseKinds.java, one "kind seed x y z n" per line, doubles in hex.
// Also prints the exponential-perlin magnitude table with --magnitudes.
// Regenerate: scripts/regenerate-vectors.sh
import java.util.Random;

public final class Vectors {
    static void emit(String kind, int seed, double x, double y, double z, double n) {
        System.out.println(kind + " " + Integer.toUnsignedString(seed) + " " + Double.toHexString(x)
                + " " + Double.toHexString(y) + " " + Double.toHexString(z) + " "
                + Double.toHexString(n));
    }

    static void all(int seed, double x, double y, double z) {
        emit("perlin", seed, x, y, z, NoiseKinds.perlin(seed, x, y, z));
        emit("exponential-perlin", seed, x, y, z, NoiseKinds.expPerlin(seed, x, y, z));
        emit("polynomial", seed, x, y, 0, NoiseKinds.polynomial(seed, x, y));
        emit("value", seed, x, y, 0, NoiseKinds.value(seed, x, y));
        double[] f = NoiseKinds.cellular(seed, x, y);
        emit("cellular-f1", seed, x, y, 0, f[0]);
        emit("cellular-f2", seed, x, y, 0, f[1]);
        emit("cellular-f2-f1", seed, x, y, 0, f[1] - f[0]);
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("--magnitudes")) {
            for (int i = 0; i < 256; i++)
                System.out.println(Double.toHexString(NoiseKinds.magnitude(i)));
            return;
        }
        // Perlin's own noise: lattice points and halves, then random points
        // over many cells at several scales, both signs, up to 1e9.
        for (int a = -2; a <= 2; a++)
            for (int b = -2; b <= 2; b++)
                for (int c = -1; c <= 1; c++) {
                    double x = a * 0.5, y = b * 0.5, z = c * 0.75;
                    emit("perlin", 0, x, y, z, ImprovedNoise.noise(x, y, z));
                }
        Random rng = new Random(20020701L);
        double[] scales = {1, 10, 300, 1e4, 1e6, 1e7, 1e9};
        for (double scale : scales)
            for (int n = 0; n < 160; n++) {
                double x = (rng.nextDouble() * 2 - 1) * scale, y = (rng.nextDouble() * 2 - 1) * scale,
                       z = (rng.nextDouble() * 2 - 1) * scale;
                emit("perlin", 0, x, y, z, ImprovedNoise.noise(x, y, z));
            }
        // Every kind, four seeds, scales up to 1e7 (and one 2^40 point).
        int[] seeds = {0, 1, 12345, 0xdeadbeef};
        double[] kscales = {1, 20, 1e4, 1e7};
        for (int seed : seeds) {
            for (double scale : kscales)
                for (int n = 0; n < 25; n++)
                    all(seed, (rng.nextDouble() * 2 - 1) * scale, (rng.nextDouble() * 2 - 1) * scale,
                        rng.nextDouble() * 4 - 2);
            all(seed, 0x1p40 + 0.375, -0x1p40 - 0.625, 0.5);
            all(seed, 0.0, 0.0, 0.0);
            all(seed, -1.0, 3.0, -2.0);
        }
    }
}
