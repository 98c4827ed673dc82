package android;

/** Stand-in for the framework's android.R (subset): the public drawables used. */
public final class R {
    private R() {}

    public static final class drawable {
        private drawable() {}

        public static final int stat_sys_data_bluetooth = 0x01080080;
    }
}
