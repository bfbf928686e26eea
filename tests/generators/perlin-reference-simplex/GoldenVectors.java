// Prints golden vectors for "perlin-reference-simplex": inputs and outputs of
// Ken Perlin's reference Noise3 (thesis Code fragment 2, in Noise3.java beside
// this file, verbatim) as exact hexadecimal doubles, one "x y z n" per line.
// Regenerate: scripts/regenerate-vectors.sh
import java.util.Random;

public final class GoldenVectors {
    static void emit(double x, double y, double z) {
        double n = Noise3.noise(x, y, z);
        System.out.println(Double.toHexString(x) + " " + Double.toHexString(y) + " "
                + Double.toHexString(z) + " " + Double.toHexString(n));
    }

    public static void main(String[] args) {
        // Lattice points, cell edges and simple fractions.
        for (int a = -2; a <= 2; a++)
            for (int b = -2; b <= 2; b++)
                emit(a * 0.5, b * 0.5, (a + b) * 0.25);
        // Points spread over many cells at several scales, both signs.
        Random rng = new Random(20170501L);
        double[] scales = {1, 10, 1000, 1e6, 1e9};
        for (double scale : scales)
            for (int n = 0; n < 200; n++)
                emit((rng.nextDouble() * 2 - 1) * scale, (rng.nextDouble() * 2 - 1) * scale,
                     (rng.nextDouble() * 2 - 1) * scale);
        // Beyond the int range: Java's (int) cast saturates.
        emit(3e9, -3e9, 0.25);
        emit(-1e12, 5e11, 7.5);
    }
}
