// The Win32 helper the Windows scripts load with Add-Type: SendInput for the mouse and keyboard,
// EnumWindows and friends for windows, and DPI awareness so every coordinate is a physical pixel.
//
// NOT RUN ON A REAL WINDOWS MACHINE. The C# source is compiled in the unit tests with Mono's `mcs`
// at C# 5 (what Windows PowerShell 5.1's Add-Type accepts), so syntax and types are checked; none
// of the Win32 calls has been executed.
//
// Why C# rather than PowerShell: SendInput needs exact struct layouts (INPUT is 40 bytes on
// 64-bit Windows with the union at offset 8), and EnumWindows needs a callback.

/** The type the scripts call; the guard below compiles it once per PowerShell process. */
export const NATIVE_TYPE = 'NextAI.Win32';

export const NATIVE_CSHARP = String.raw`
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;

namespace NextAI
{
    public class WindowRow
    {
        public long Handle { get; set; }
        public string Title { get; set; }
        public int Pid { get; set; }
        public string App { get; set; }
        public int X { get; set; }
        public int Y { get; set; }
        public int Width { get; set; }
        public int Height { get; set; }
        public bool Focused { get; set; }
        public bool Minimized { get; set; }
        public bool Maximized { get; set; }
    }

    public static class Win32
    {
        [StructLayout(LayoutKind.Sequential)]
        struct RECT { public int Left; public int Top; public int Right; public int Bottom; }

        [StructLayout(LayoutKind.Sequential)]
        struct POINT { public int X; public int Y; }

        [StructLayout(LayoutKind.Sequential)]
        struct MOUSEINPUT { public int dx; public int dy; public uint mouseData; public uint dwFlags; public uint time; public IntPtr dwExtraInfo; }

        [StructLayout(LayoutKind.Sequential)]
        struct KEYBDINPUT { public ushort wVk; public ushort wScan; public uint dwFlags; public uint time; public IntPtr dwExtraInfo; }

        [StructLayout(LayoutKind.Sequential)]
        struct HARDWAREINPUT { public uint uMsg; public ushort wParamL; public ushort wParamH; }

        [StructLayout(LayoutKind.Explicit)]
        struct INPUTUNION
        {
            [FieldOffset(0)] public MOUSEINPUT mi;
            [FieldOffset(0)] public KEYBDINPUT ki;
            [FieldOffset(0)] public HARDWAREINPUT hi;
        }

        [StructLayout(LayoutKind.Sequential)]
        struct INPUT { public uint type; public INPUTUNION u; }

        delegate bool EnumWindowsProc(IntPtr hwnd, IntPtr lParam);

        [DllImport("user32.dll", SetLastError = true)] static extern uint SendInput(uint count, INPUT[] inputs, int size);
        [DllImport("user32.dll")] static extern bool SetCursorPos(int x, int y);
        [DllImport("user32.dll")] static extern bool GetCursorPos(out POINT point);
        [DllImport("user32.dll")] static extern short GetAsyncKeyState(int key);
        [DllImport("user32.dll")] static extern uint MapVirtualKey(uint code, uint mapType);
        [DllImport("user32.dll", CharSet = CharSet.Unicode)] static extern short VkKeyScan(char character);
        [DllImport("user32.dll")] static extern int GetSystemMetrics(int index);
        [DllImport("user32.dll")] static extern bool EnumWindows(EnumWindowsProc callback, IntPtr lParam);
        [DllImport("user32.dll")] static extern bool IsWindow(IntPtr hwnd);
        [DllImport("user32.dll")] static extern bool IsWindowVisible(IntPtr hwnd);
        [DllImport("user32.dll")] static extern bool IsIconic(IntPtr hwnd);
        [DllImport("user32.dll")] static extern bool IsZoomed(IntPtr hwnd);
        [DllImport("user32.dll", CharSet = CharSet.Unicode)] static extern int GetWindowTextLength(IntPtr hwnd);
        [DllImport("user32.dll", CharSet = CharSet.Unicode)] static extern int GetWindowText(IntPtr hwnd, StringBuilder text, int max);
        [DllImport("user32.dll")] static extern uint GetWindowThreadProcessId(IntPtr hwnd, out uint pid);
        [DllImport("user32.dll")] static extern bool GetWindowRect(IntPtr hwnd, out RECT rect);
        [DllImport("user32.dll")] static extern IntPtr GetWindow(IntPtr hwnd, uint command);
        [DllImport("user32.dll")] static extern int GetWindowLong(IntPtr hwnd, int index);
        [DllImport("user32.dll")] static extern IntPtr GetForegroundWindow();
        [DllImport("user32.dll")] static extern bool SetForegroundWindow(IntPtr hwnd);
        [DllImport("user32.dll")] static extern bool BringWindowToTop(IntPtr hwnd);
        [DllImport("user32.dll")] static extern bool ShowWindowAsync(IntPtr hwnd, int command);
        [DllImport("user32.dll")] static extern bool SetWindowPos(IntPtr hwnd, IntPtr after, int x, int y, int width, int height, uint flags);
        [DllImport("user32.dll", SetLastError = true)] static extern bool PostMessage(IntPtr hwnd, uint message, IntPtr wParam, IntPtr lParam);
        [DllImport("user32.dll")] static extern bool AttachThreadInput(uint attach, uint attachTo, bool doAttach);
        [DllImport("kernel32.dll")] static extern uint GetCurrentThreadId();
        [DllImport("user32.dll")] static extern bool SetProcessDPIAware();
        [DllImport("user32.dll")] static extern bool SetProcessDpiAwarenessContext(IntPtr context);
        [DllImport("dwmapi.dll")] static extern int DwmGetWindowAttribute(IntPtr hwnd, int attribute, out RECT value, int size);
        [DllImport("dwmapi.dll")] static extern int DwmGetWindowAttribute(IntPtr hwnd, int attribute, out int value, int size);

        const uint INPUT_MOUSE = 0;
        const uint INPUT_KEYBOARD = 1;
        const uint KEYEVENTF_EXTENDEDKEY = 0x0001;
        const uint KEYEVENTF_KEYUP = 0x0002;
        const uint KEYEVENTF_UNICODE = 0x0004;
        const uint MOUSEEVENTF_MOVE = 0x0001;
        const uint MOUSEEVENTF_WHEEL = 0x0800;
        const uint MOUSEEVENTF_HWHEEL = 0x1000;
        const uint MOUSEEVENTF_VIRTUALDESK = 0x4000;
        const uint MOUSEEVENTF_ABSOLUTE = 0x8000;
        const int SM_CXSCREEN = 0;
        const int SM_CYSCREEN = 1;
        const int SM_SWAPBUTTON = 23;
        const int SM_XVIRTUALSCREEN = 76;
        const int SM_YVIRTUALSCREEN = 77;
        const int SM_CXVIRTUALSCREEN = 78;
        const int SM_CYVIRTUALSCREEN = 79;
        const int GWL_EXSTYLE = -20;
        const int WS_EX_TOOLWINDOW = 0x00000080;
        const int WS_EX_APPWINDOW = 0x00040000;
        const uint GW_OWNER = 4;
        const int DWMWA_EXTENDED_FRAME_BOUNDS = 9;
        const int DWMWA_CLOAKED = 14;
        const uint SWP_NOSIZE = 0x0001;
        const uint SWP_NOMOVE = 0x0002;
        const uint SWP_NOZORDER = 0x0004;
        const uint SWP_NOACTIVATE = 0x0010;
        const uint SWP_ASYNCWINDOWPOS = 0x4000;
        const uint WM_CLOSE = 0x0010;
        const int VK_MENU = 0x12;

        static bool dpiAware;

        /**
         * Physical pixels everywhere: without this, a scaled display (150 %) would give this process
         * virtualised coordinates, and screenshots, clicks and window bounds would disagree.
         */
        public static void EnsureDpiAware()
        {
            if (dpiAware) return;
            dpiAware = true;
            try
            {
                // DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2 (Windows 10 1703+).
                if (SetProcessDpiAwarenessContext(new IntPtr(-4))) return;
            }
            catch (EntryPointNotFoundException)
            {
                // Older Windows: system DPI awareness below.
            }
            SetProcessDPIAware();
        }

        public static int[] PrimarySize()
        {
            EnsureDpiAware();
            return new int[] { GetSystemMetrics(SM_CXSCREEN), GetSystemMetrics(SM_CYSCREEN) };
        }

        public static int[] VirtualScreen()
        {
            EnsureDpiAware();
            return new int[] {
                GetSystemMetrics(SM_XVIRTUALSCREEN), GetSystemMetrics(SM_YVIRTUALSCREEN),
                GetSystemMetrics(SM_CXVIRTUALSCREEN), GetSystemMetrics(SM_CYVIRTUALSCREEN)
            };
        }

        // ---- input ---------------------------------------------------------------------------

        static void Send(List<INPUT> inputs)
        {
            if (inputs.Count == 0) return;
            INPUT[] array = inputs.ToArray();
            uint sent = SendInput((uint)array.Length, array, Marshal.SizeOf(typeof(INPUT)));
            // UIPI (an elevated window in front) or a secure desktop makes SendInput drop events.
            if (sent != array.Length) throw new BlockedInputException("SendInput sent " + sent + " of " + array.Length + " events (error " + Marshal.GetLastWin32Error() + ")");
        }

        static INPUT Mouse(uint flags, int dx, int dy, uint data)
        {
            INPUT input = new INPUT();
            input.type = INPUT_MOUSE;
            input.u.mi.dx = dx;
            input.u.mi.dy = dy;
            input.u.mi.mouseData = data;
            input.u.mi.dwFlags = flags;
            return input;
        }

        static INPUT Key(ushort vk, bool up, bool extended)
        {
            INPUT input = new INPUT();
            input.type = INPUT_KEYBOARD;
            input.u.ki.wVk = vk;
            input.u.ki.wScan = (ushort)MapVirtualKey(vk, 0);
            input.u.ki.dwFlags = (up ? KEYEVENTF_KEYUP : 0) | (extended ? KEYEVENTF_EXTENDEDKEY : 0);
            return input;
        }

        static INPUT Unicode(char unit, bool up)
        {
            INPUT input = new INPUT();
            input.type = INPUT_KEYBOARD;
            input.u.ki.wVk = 0;
            input.u.ki.wScan = unit;
            input.u.ki.dwFlags = KEYEVENTF_UNICODE | (up ? KEYEVENTF_KEYUP : 0);
            return input;
        }

        public static int[] Pointer()
        {
            EnsureDpiAware();
            POINT point;
            GetCursorPos(out point);
            return new int[] { point.X, point.Y };
        }

        /** A real move event (apps that track drags want one), then SetCursorPos for the exact pixel. */
        public static void MoveTo(int x, int y)
        {
            EnsureDpiAware();
            int[] screen = VirtualScreen();
            int width = Math.Max(2, screen[2]);
            int height = Math.Max(2, screen[3]);
            int nx = (int)Math.Round((x - screen[0]) * 65535.0 / (width - 1));
            int ny = (int)Math.Round((y - screen[1]) * 65535.0 / (height - 1));
            List<INPUT> inputs = new List<INPUT>();
            inputs.Add(Mouse(MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK, nx, ny, 0));
            Send(inputs);
            SetCursorPos(x, y);
        }

        public static void Glide(int fromX, int fromY, int toX, int toY, int durationMs)
        {
            int steps = Math.Max(1, (int)Math.Round(durationMs / 15.0));
            for (int step = 1; step <= steps; step++)
            {
                double t = (double)step / steps;
                MoveTo((int)Math.Round(fromX + (toX - fromX) * t), (int)Math.Round(fromY + (toY - fromY) * t));
                if (step < steps) Thread.Sleep(durationMs / steps);
            }
        }

        /** Button flags (down, up) for a logical button; SendInput speaks physical buttons. */
        static uint[] ButtonFlags(string button)
        {
            bool swapped = GetSystemMetrics(SM_SWAPBUTTON) != 0;
            if (button == "middle") return new uint[] { 0x0020, 0x0040 };
            bool physicalLeft = (button == "left") != swapped;
            return physicalLeft ? new uint[] { 0x0002, 0x0004 } : new uint[] { 0x0008, 0x0010 };
        }

        public static void Button(string button, bool up)
        {
            List<INPUT> inputs = new List<INPUT>();
            inputs.Add(Mouse(ButtonFlags(button)[up ? 1 : 0], 0, 0, 0));
            Send(inputs);
        }

        public static void Click(string button, int count)
        {
            uint[] flags = ButtonFlags(button);
            List<INPUT> inputs = new List<INPUT>();
            for (int i = 0; i < count; i++)
            {
                inputs.Add(Mouse(flags[0], 0, 0, 0));
                inputs.Add(Mouse(flags[1], 0, 0, 0));
            }
            Send(inputs);
        }

        /** One wheel event; delta in wheel units (120 = one notch), positive = up / right. */
        public static void Wheel(int delta, bool horizontal)
        {
            List<INPUT> inputs = new List<INPUT>();
            inputs.Add(Mouse(horizontal ? MOUSEEVENTF_HWHEEL : MOUSEEVENTF_WHEEL, 0, 0, unchecked((uint)delta)));
            Send(inputs);
        }

        public static void KeyEvent(int vk, bool up, bool extended)
        {
            List<INPUT> inputs = new List<INPUT>();
            inputs.Add(Key((ushort)vk, up, extended));
            Send(inputs);
        }

        /** The key that types a character on the current layout: { vk, needsShift }, or null. */
        public static int[] KeyForCharacter(string character)
        {
            if (character.Length != 1) return null;
            short result = VkKeyScan(character[0]);
            if (result == -1) return null;
            int shiftState = (result >> 8) & 0xff;
            // Only Shift may be part of it: AltGr characters are typed as text, not as chords.
            if ((shiftState & ~1) != 0) return null;
            return new int[] { result & 0xff, shiftState & 1 };
        }

        /** Types UTF-16 text as Unicode key events (any script, emoji as surrogate pairs). */
        public static void TypeUnicode(string text)
        {
            List<INPUT> inputs = new List<INPUT>();
            foreach (char unit in text)
            {
                inputs.Add(Unicode(unit, false));
                inputs.Add(Unicode(unit, true));
            }
            Send(inputs);
        }

        /** Releases every mouse button that is down (GetAsyncKeyState reads physical buttons). */
        public static string[] ReleaseButtons()
        {
            List<string> released = new List<string>();
            int[] keys = new int[] { 0x01, 0x02, 0x04 };
            uint[] ups = new uint[] { 0x0004, 0x0010, 0x0040 };
            string[] names = new string[] { "left", "right", "middle" };
            bool swapped = GetSystemMetrics(SM_SWAPBUTTON) != 0;
            for (int i = 0; i < keys.Length; i++)
            {
                if ((GetAsyncKeyState(keys[i]) & 0x8000) == 0) continue;
                List<INPUT> inputs = new List<INPUT>();
                inputs.Add(Mouse(ups[i], 0, 0, 0));
                Send(inputs);
                string name = names[i];
                if (swapped && i < 2) name = i == 0 ? "right" : "left";
                released.Add(name + " button");
            }
            return released.ToArray();
        }

        /** Virtual keys that are down right now (a physical press counts too). */
        public static bool IsDown(int vk)
        {
            return (GetAsyncKeyState(vk) & 0x8000) != 0;
        }

        // ---- windows -------------------------------------------------------------------------

        static string TitleOf(IntPtr hwnd)
        {
            int length = GetWindowTextLength(hwnd);
            if (length <= 0) return "";
            StringBuilder text = new StringBuilder(length + 1);
            GetWindowText(hwnd, text, text.Capacity);
            return text.ToString();
        }

        /** The visible frame: GetWindowRect includes the invisible resize borders of Windows 10+. */
        static RECT FrameOf(IntPtr hwnd)
        {
            RECT rect;
            if (DwmGetWindowAttribute(hwnd, DWMWA_EXTENDED_FRAME_BOUNDS, out rect, Marshal.SizeOf(typeof(RECT))) == 0) return rect;
            GetWindowRect(hwnd, out rect);
            return rect;
        }

        static bool IsCloaked(IntPtr hwnd)
        {
            int cloaked;
            return DwmGetWindowAttribute(hwnd, DWMWA_CLOAKED, out cloaked, sizeof(int)) == 0 && cloaked != 0;
        }

        /** The windows Alt+Tab shows: visible, titled, not cloaked, not tool windows, unowned or app windows. */
        static bool IsAppWindow(IntPtr hwnd)
        {
            if (!IsWindowVisible(hwnd) || IsCloaked(hwnd)) return false;
            int style = GetWindowLong(hwnd, GWL_EXSTYLE);
            if ((style & WS_EX_TOOLWINDOW) != 0) return false;
            if (GetWindow(hwnd, GW_OWNER) != IntPtr.Zero && (style & WS_EX_APPWINDOW) == 0) return false;
            return GetWindowTextLength(hwnd) > 0;
        }

        static string ProcessName(int pid, Dictionary<int, string> cache)
        {
            string name;
            if (cache.TryGetValue(pid, out name)) return name;
            try { name = Process.GetProcessById(pid).ProcessName; }
            catch (ArgumentException) { name = ""; }
            catch (InvalidOperationException) { name = ""; }
            cache[pid] = name;
            return name;
        }

        static WindowRow Describe(IntPtr hwnd, IntPtr foreground, Dictionary<int, string> names)
        {
            uint pid;
            GetWindowThreadProcessId(hwnd, out pid);
            RECT frame = FrameOf(hwnd);
            WindowRow row = new WindowRow();
            row.Handle = hwnd.ToInt64();
            row.Title = TitleOf(hwnd);
            row.Pid = (int)pid;
            row.App = ProcessName((int)pid, names);
            row.X = frame.Left;
            row.Y = frame.Top;
            row.Width = frame.Right - frame.Left;
            row.Height = frame.Bottom - frame.Top;
            row.Focused = hwnd == foreground;
            row.Minimized = IsIconic(hwnd);
            row.Maximized = IsZoomed(hwnd);
            return row;
        }

        public static WindowRow[] ListWindows()
        {
            EnsureDpiAware();
            List<WindowRow> rows = new List<WindowRow>();
            IntPtr foreground = GetForegroundWindow();
            Dictionary<int, string> names = new Dictionary<int, string>();
            EnumWindowsProc callback = delegate (IntPtr hwnd, IntPtr lParam)
            {
                if (IsAppWindow(hwnd)) rows.Add(Describe(hwnd, foreground, names));
                return true;
            };
            EnumWindows(callback, IntPtr.Zero);
            GC.KeepAlive(callback);
            return rows.ToArray();
        }

        static IntPtr Existing(long handle)
        {
            IntPtr hwnd = new IntPtr(handle);
            if (!IsWindow(hwnd)) throw new WindowGoneException("There is no window 0x" + handle.ToString("x") + " (it may have been closed).");
            return hwnd;
        }

        public static WindowRow Window(long handle)
        {
            EnsureDpiAware();
            return Describe(Existing(handle), GetForegroundWindow(), new Dictionary<int, string>());
        }

        /**
         * Windows lets a process take the foreground only in some cases (foreground lock). An Alt
         * tap counts as user input, and attaching to the foreground thread's input queue lets
         * SetForegroundWindow through; both are what tools like AutoHotkey do.
         */
        public static bool Focus(long handle)
        {
            EnsureDpiAware();
            IntPtr hwnd = Existing(handle);
            if (IsIconic(hwnd)) ShowWindowAsync(hwnd, 9);
            if (SetForegroundWindow(hwnd) && GetForegroundWindow() == hwnd) return true;
            List<INPUT> alt = new List<INPUT>();
            alt.Add(Key(VK_MENU, false, false));
            alt.Add(Key(VK_MENU, true, false));
            Send(alt);
            uint foregroundThread = 0;
            uint ignored;
            IntPtr foreground = GetForegroundWindow();
            if (foreground != IntPtr.Zero) foregroundThread = GetWindowThreadProcessId(foreground, out ignored);
            uint self = GetCurrentThreadId();
            bool attached = foregroundThread != 0 && foregroundThread != self && AttachThreadInput(self, foregroundThread, true);
            try
            {
                BringWindowToTop(hwnd);
                SetForegroundWindow(hwnd);
            }
            finally
            {
                if (attached) AttachThreadInput(self, foregroundThread, false);
            }
            return GetForegroundWindow() == hwnd;
        }

        /** ShowWindowAsync: a hung window cannot block the helper. 3 maximize, 6 minimize, 9 restore. */
        public static void Show(long handle, int command)
        {
            ShowWindowAsync(Existing(handle), command);
        }

        /**
         * Moves or sizes the visible frame to the given rectangle (null keeps that part). The
         * invisible borders are added back, and the call is asynchronous so a hung window cannot
         * block the helper: the script polls for the result.
         */
        public static void Place(long handle, int x, int y, int width, int height, bool move, bool size)
        {
            EnsureDpiAware();
            IntPtr hwnd = Existing(handle);
            RECT outer;
            GetWindowRect(hwnd, out outer);
            RECT frame = FrameOf(hwnd);
            int left = frame.Left - outer.Left;
            int top = frame.Top - outer.Top;
            int right = outer.Right - frame.Right;
            int bottom = outer.Bottom - frame.Bottom;
            uint flags = SWP_NOZORDER | SWP_NOACTIVATE | SWP_ASYNCWINDOWPOS;
            if (!move) flags |= SWP_NOMOVE;
            if (!size) flags |= SWP_NOSIZE;
            SetWindowPos(hwnd, IntPtr.Zero, x - left, y - top, width + left + right, height + top + bottom, flags);
        }

        /** WM_CLOSE: the app may ask to save first, exactly as when the person clicks the X. */
        public static void Close(long handle)
        {
            if (!PostMessage(Existing(handle), WM_CLOSE, IntPtr.Zero, IntPtr.Zero))
            {
                throw new InvalidOperationException("PostMessage(WM_CLOSE) failed with error " + Marshal.GetLastWin32Error());
            }
        }
    }

    public class BlockedInputException : Exception
    {
        public BlockedInputException(string message) : base(message) { Data["nextaiCode"] = "BLOCKED_INPUT"; }
    }

    public class WindowGoneException : Exception
    {
        public WindowGoneException(string message) : base(message) { Data["nextaiCode"] = "NOT_FOUND"; }
    }
}
`;

/**
 * PowerShell that makes the helper available: compiled on first use in a process (Add-Type runs
 * the C# compiler, about a second), reused afterwards — which the persistent host benefits from.
 * The C# source travels inside the constant script, never built from request data.
 */
export const LOAD_NATIVE = String.raw`
if (-not ('${NATIVE_TYPE}' -as [type])) {
  Add-Type -TypeDefinition @'
${NATIVE_CSHARP}
'@ -Language CSharp
}
[${NATIVE_TYPE}]::EnsureDpiAware()
`;
