package android.content;

import android.os.Bundle;
import android.os.Parcelable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * Stand-in for android.content.Intent (subset used by Bluetooth discovery):
 *   Intent(String action)
 *   String getAction()
 *   Intent setData(Uri data), Uri getData()
 *   Intent putExtra(String name, Parcelable value)
 *   Intent putExtra(String name, String value)
 *   Intent putExtra(String name, int value)
 *   Intent putExtra(String name, long value)
 *   Intent putExtra(String name, boolean value)
 *   Intent putExtras(Bundle extras)
 *   int getIntExtra(String name, int defaultValue)      only an int extra, as on Android
 *   <T extends Parcelable> T getParcelableExtra(String name)              (deprecated in API 33)
 *   <T> T getParcelableExtra(String name, Class<T> clazz)                  (API 33)
 *   String getStringExtra(String name)
 * and for sharing (the hand history's export):
 *   ACTION_SEND, ACTION_CHOOSER, EXTRA_TEXT, EXTRA_SUBJECT, EXTRA_TITLE, EXTRA_INTENT
 *   Intent setType(String type), String getType()
 *   Intent putExtra(String name, CharSequence value), CharSequence getCharSequenceExtra(String)
 *   static Intent createChooser(Intent target, CharSequence title)
 *   static Intent createChooser(Intent target, CharSequence title, IntentSender sender)  (API 22)
 *       Both public overloads, as on Android (AOSP Intent.java): with two, pyjnius scores
 *       the arguments and a Python str does not match CharSequence.
 *   ACTION_SEND_MULTIPLE, EXTRA_STREAM, FLAG_GRANT_READ_URI_PERMISSION
 *   Intent addFlags(int flags), int getFlags()
 *   Intent putParcelableArrayListExtra(String, ArrayList), ArrayList getParcelableArrayListExtra(String)
 *   void setClipData(ClipData clip), ClipData getClipData()
 * and for the table's foreground service (app/bluetooth/android_service.py):
 *   Intent(Context, Class), ACTION_MAIN, CATEGORY_LAUNCHER, FLAG_ACTIVITY_NEW_TASK,
 *   FLAG_ACTIVITY_RESET_TASK_IF_NEEDED, Intent addCategory(String), boolean hasCategory(String),
 *   Intent setClassName(String, String), Intent setFlags(int)
 * (Intent implements Parcelable, as on Android, so a chooser carries its target.)
 */
public class Intent implements Parcelable {
    public static final String ACTION_SEND = "android.intent.action.SEND";
    public static final String ACTION_CHOOSER = "android.intent.action.CHOOSER";
    public static final String EXTRA_TEXT = "android.intent.extra.TEXT";
    public static final String EXTRA_SUBJECT = "android.intent.extra.SUBJECT";
    public static final String EXTRA_TITLE = "android.intent.extra.TITLE";
    public static final String EXTRA_INTENT = "android.intent.extra.INTENT";
    public static final String ACTION_SEND_MULTIPLE = "android.intent.action.SEND_MULTIPLE";
    public static final String EXTRA_STREAM = "android.intent.extra.STREAM";
    public static final int FLAG_GRANT_READ_URI_PERMISSION = 0x00000001;
    public static final String ACTION_MAIN = "android.intent.action.MAIN";
    public static final String CATEGORY_LAUNCHER = "android.intent.category.LAUNCHER";
    public static final int FLAG_ACTIVITY_NEW_TASK = 0x10000000;
    public static final int FLAG_ACTIVITY_RESET_TASK_IF_NEEDED = 0x00200000;

    private final String action;
    private String type;
    private final Map<String, Object> extras = new HashMap<>();
    private android.net.Uri data;
    private int flags;
    private ClipData clip;
    private String className;
    private final java.util.Set<String> categories = new java.util.HashSet<>();

    /** An explicit intent for a component of this app (Intent(Context, Class)). */
    public Intent(Context packageContext, Class<?> cls) {
        this.action = null;
        this.className = cls.getName();
    }

    public Intent setClassName(String packageName, String className) {
        this.className = className;
        return this;
    }

    public Intent addCategory(String category) {
        categories.add(category);
        return this;
    }

    public boolean hasCategory(String category) {
        return categories.contains(category);
    }

    public Intent setFlags(int flags) {
        this.flags = flags;
        return this;
    }

    /** The explicit component's class (test hook: Android has getComponent()). */
    public String standinClassName() {
        return className;
    }

    public Intent addFlags(int flags) {
        this.flags |= flags;
        return this;
    }

    public int getFlags() {
        return flags;
    }

    public void setClipData(ClipData clip) {
        this.clip = clip;
    }

    public ClipData getClipData() {
        return clip;
    }

    public Intent putParcelableArrayListExtra(String name, ArrayList<? extends Parcelable> value) {
        extras.put(name, value);
        return this;
    }

    @SuppressWarnings("unchecked")
    public <T extends Parcelable> ArrayList<T> getParcelableArrayListExtra(String name) {
        Object value = extras.get(name);
        return value instanceof ArrayList ? (ArrayList<T>) value : null;
    }

    public Intent(String action) {
        this.action = action;
    }

    public String getAction() {
        return action;
    }

    public Intent setType(String type) {
        this.type = type;
        return this;
    }

    public String getType() {
        return type;
    }

    public Intent putExtra(String name, CharSequence value) {
        extras.put(name, value);
        return this;
    }

    public CharSequence getCharSequenceExtra(String name) {
        Object value = extras.get(name);
        return value instanceof CharSequence ? (CharSequence) value : null;
    }

    public static Intent createChooser(Intent target, CharSequence title) {
        return createChooser(target, title, null);
    }

    public static Intent createChooser(Intent target, CharSequence title, IntentSender sender) {
        Intent chooser = new Intent(ACTION_CHOOSER);
        chooser.extras.put(EXTRA_INTENT, target);
        if (title != null) {
            chooser.extras.put(EXTRA_TITLE, title);
        }
        return chooser;
    }

    public Intent setData(android.net.Uri data) {
        this.data = data;
        return this;
    }

    public android.net.Uri getData() {
        return data;
    }

    public Intent putExtra(String name, Parcelable value) {
        extras.put(name, value);
        return this;
    }

    public Intent putExtra(String name, String value) {
        extras.put(name, value);
        return this;
    }

    public Intent putExtra(String name, int value) {
        extras.put(name, Integer.valueOf(value));
        return this;
    }

    public Intent putExtra(String name, long value) {
        extras.put(name, Long.valueOf(value));
        return this;
    }

    public Intent putExtra(String name, boolean value) {
        extras.put(name, Boolean.valueOf(value));
        return this;
    }

    public Intent putExtras(Bundle bundle) {
        for (String key : bundle.keySet()) {
            extras.put(key, bundle.get(key));
        }
        return this;
    }

    public Intent putExtras(Intent src) {
        extras.putAll(src.extras);
        return this;
    }

    public int getIntExtra(String name, int defaultValue) {
        Object value = extras.get(name);
        return value instanceof Integer ? (Integer) value : defaultValue;
    }

    @SuppressWarnings("unchecked")
    public <T extends Parcelable> T getParcelableExtra(String name) {
        return (T) extras.get(name);
    }

    public <T> T getParcelableExtra(String name, Class<T> clazz) {
        Object value = extras.get(name);
        return clazz.isInstance(value) ? clazz.cast(value) : null;
    }

    public String getStringExtra(String name) {
        Object value = extras.get(name);
        return value instanceof String ? (String) value : null;
    }
}
