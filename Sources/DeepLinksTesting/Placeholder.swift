public enum _DeepLinksTesting {}
