package android.os;

/**
 * Stand-in for android.os.Build (subset): only Build.VERSION.SDK_INT.
 *
 * <p>Android: {@code public static final int SDK_INT}. Here it is not final, so that
 * tests can play different API levels (android.bluetooth.Standin.setSdk); pyjnius reads
 * a static field the same way either way.
 */
public class Build {
    public static class VERSION {
        public static int SDK_INT = 34;
    }

    public static class VERSION_CODES {
        public static final int M = 23;
        public static final int S = 31;
    }
}
