package android.os;

/** Stand-in for android.os.Parcelable: a marker here (the app never parcels anything). */
public interface Parcelable {
}
