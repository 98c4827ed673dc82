package android.os;

/** Stand-in for android.os.IBinder: only its type (Service.onBind's result). */
public interface IBinder {
}
