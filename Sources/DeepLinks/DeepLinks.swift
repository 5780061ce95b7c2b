public enum DeepLinks {}
