package android.content;

import android.net.Uri;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.OutputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Stand-in for android.content.ContentResolver (subset the history's share needs), with
 * MediaStore behind it:
 * <pre>
 *   Uri insert(Uri collection, ContentValues values)   a new row: collection/N (null when
 *                                                        the collection is not MediaStore's
 *                                                        Downloads, as for an unknown table)
 *   OutputStream openOutputStream(Uri uri)             the row's bytes (FileNotFoundException
 *                                                        for a URI never inserted)
 *   int delete(Uri uri, String where, String[] selectionArgs)   the row gone; rows deleted
 *   int delete(Uri uri, Bundle extras)                  (API 30) the same
 * </pre>
 * The standin* methods are test hooks, not API.
 */
public class ContentResolver {
    private static final Map<String, ByteArrayOutputStream> content = new ConcurrentHashMap<>();
    private static final Map<String, ContentValues> rows = new ConcurrentHashMap<>();
    private static int next = 1;
    private static volatile boolean full;
    /** Rows accepted before the storage is full (-1: no limit). */
    private static volatile int room = -1;

    public Uri insert(Uri collection, ContentValues values) {
        if (full || !collection.toString().equals("content://media/external/downloads")) {
            return null;
        }
        Uri uri;
        synchronized (ContentResolver.class) {
            if (room == 0) {
                return null;
            }
            if (room > 0) {
                room--;
            }
            uri = Uri.parse(collection + "/" + next++);
        }
        rows.put(uri.toString(), values);
        content.put(uri.toString(), new ByteArrayOutputStream());
        return uri;
    }

    public OutputStream openOutputStream(Uri uri) throws FileNotFoundException {
        ByteArrayOutputStream out = content.get(uri.toString());
        if (out == null) {
            throw new FileNotFoundException("no such row: " + uri);
        }
        out.reset();
        return out;
    }

    public int delete(Uri uri, String where, String[] selectionArgs) {
        boolean had = rows.remove(uri.toString()) != null;
        content.remove(uri.toString());
        return had ? 1 : 0;
    }

    public int delete(Uri uri, android.os.Bundle extras) {
        return delete(uri, null, null);
    }

    /** How many rows MediaStore's Downloads holds now. */
    public static int standinRows() {
        return rows.size();
    }

    /** The shared storage takes n more rows, then refuses (it filled up). */
    public static void standinRoom(int n) {
        room = n;
    }

    public static byte[] standinContent(Uri uri) {
        ByteArrayOutputStream out = content.get(uri.toString());
        return out == null ? null : out.toByteArray();
    }

    public static ContentValues standinValues(Uri uri) {
        return rows.get(uri.toString());
    }

    /** The shared storage refuses new rows (a full disk). */
    public static void standinFull(boolean value) {
        full = value;
    }

    public static void standinReset() {
        content.clear();
        rows.clear();
        full = false;
        room = -1;
    }
}
