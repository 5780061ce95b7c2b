// Stand-in for Apple's SwiftUI: only the declarations the Apple-side code uses, each as Apple declares it
// (signature, availability, isolation: since the iOS 18 SDK `View`, `ViewModifier`, `App` and `Scene` are
// `@MainActor @preconcurrency` protocols, while modifiers are `nonisolated` and their closures not `@MainActor`
// unless stated). Like Apple's, it re-exports UIKit (and with it Foundation), not Combine or Observation.
//
// swiftc on Linux ignores `@available(iOS ...)`, so each platform the package declares is checked with its own
// build of this file (`-D IOS16`, `-D TVOS16`, `-D VISIONOS1`, `-D MACOS13`): what the platform lacks is
// `@available(*, unavailable)` under its condition.
#if MACOS13
@_exported import AppleFoundation  // on macOS, SwiftUI re-exports AppKit and Foundation, not UIKit
#else
@_exported import UIKit
#endif
import Combine

// MARK: Protocols and builders

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

/// What every modifier of this stand-in returns (Apple's return distinct types behind `some View`).
struct _Modified<Content>: View {
    nonisolated init(_ content: Content) {}
    var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@MainActor @preconcurrency public protocol ViewModifier {
    associatedtype Body: View
    typealias Content = _ViewModifier_Content<Self>
    @ViewBuilder @MainActor @preconcurrency func body(content: Self.Content) -> Self.Body
}

public struct _ViewModifier_Content<Modifier: ViewModifier>: View {
    public var body: Never { fatalError() }
}

@frozen public struct ModifiedContent<Content, Modifier> {
    public var content: Content
    public var modifier: Modifier
}

extension ModifiedContent: View where Content: View, Modifier: ViewModifier {
    public var body: Never { fatalError() }
}

extension View {
    nonisolated public func modifier<T>(_ modifier: T) -> ModifiedContent<Self, T> { fatalError() }
}

@frozen public struct TupleView<T>: View {
    nonisolated public init(_ value: T) {}
    public var body: Never { fatalError() }
}

@frozen public struct _ConditionalContent<TrueContent, FalseContent>: View {
    public var body: Never { fatalError() }
}

extension Optional: View where Wrapped: View {
    public var body: Never { fatalError() }
}

@frozen public struct EmptyView: View {
    nonisolated public init() {}
    public var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@resultBuilder public struct ViewBuilder {
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<
        (repeat each Content)
    > {
        TupleView((repeat each content))
    }
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent) -> _ConditionalContent<
        TrueContent, FalseContent
    > { fatalError() }
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent) -> _ConditionalContent<
        TrueContent, FalseContent
    > { fatalError() }
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
@MainActor @preconcurrency public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
    @MainActor @preconcurrency init()
}

extension App {
    @MainActor @preconcurrency public static func main() {}
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
@MainActor @preconcurrency public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: Scene {}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
@resultBuilder public struct SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public struct WindowGroup<Content: View>: Scene {
    nonisolated public init(@ViewBuilder makeContent: @escaping () -> Content) {}
    public var body: Never { fatalError() }
}

// MARK: State and environment

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen @propertyWrapper @dynamicMemberLookup public struct Binding<Value> {
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { self }
    public init(projectedValue: Binding<Value>) {}
    @preconcurrency public init(
        get: @escaping @isolated(any) @Sendable () -> Value,
        set: @escaping @isolated(any) @Sendable (Value) -> Void
    ) {}
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
        fatalError()
    }
    public static func constant(_ value: Value) -> Binding<Value> { fatalError() }
}

extension Binding: Sendable {}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen @propertyWrapper public struct State<Value> {
    public init(wrappedValue value: Value) {}
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { fatalError() }
}

extension State: Sendable {}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
@MainActor @frozen @propertyWrapper @preconcurrency public struct StateObject<ObjectType>
where ObjectType: Combine.ObservableObject {
    nonisolated public init(wrappedValue thunk: @autoclosure @escaping () -> ObjectType) {}
    @MainActor @preconcurrency public var wrappedValue: ObjectType { fatalError() }
    @MainActor @preconcurrency public var projectedValue: ObservedObject<ObjectType>.Wrapper { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@MainActor @propertyWrapper @preconcurrency @frozen public struct ObservedObject<ObjectType>
where ObjectType: Combine.ObservableObject {
    @MainActor @preconcurrency @dynamicMemberLookup @frozen public struct Wrapper {
        public subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<ObjectType, Subject>) -> Binding<
            Subject
        > { fatalError() }
    }
    public init(wrappedValue: ObjectType) {}
    public var wrappedValue: ObjectType { fatalError() }
    public var projectedValue: ObservedObject<ObjectType>.Wrapper { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@MainActor @frozen @propertyWrapper @preconcurrency public struct EnvironmentObject<ObjectType>
where ObjectType: Combine.ObservableObject {
    @MainActor @preconcurrency @dynamicMemberLookup @frozen public struct Wrapper {
        public subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<ObjectType, Subject>) -> Binding<
            Subject
        > { fatalError() }
    }
    @MainActor @preconcurrency public var wrappedValue: ObjectType { fatalError() }
    @MainActor @preconcurrency public var projectedValue: EnvironmentObject<ObjectType>.Wrapper { fatalError() }
    @MainActor @preconcurrency public init() {}
}

extension View {
    nonisolated public func environmentObject<T>(_ object: T) -> some View where T: Combine.ObservableObject {
        _Modified(self)
    }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct EnvironmentValues {
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    public var scenePhase: ScenePhase {
        get { fatalError() }
        set {}
    }
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    public var dismiss: DismissAction { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen @propertyWrapper public struct Environment<Value> {
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {}
    public var wrappedValue: Value { fatalError() }
}

extension Environment: Sendable {}

/// Not frozen: Apple's SDK is built with library evolution, so a `switch` needs `@unknown default`.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public enum ScenePhase: Comparable, Hashable, Sendable {
    case background, inactive, active
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
@MainActor @preconcurrency public struct DismissAction: Sendable {
    @MainActor @preconcurrency public func callAsFunction() {}
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
@frozen @propertyWrapper public struct AppStorage<Value>: Sendable {
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { fatalError() }
    public init(wrappedValue: Value, _ key: String, store: UserDefaults? = nil) where Value == Bool {}
}

#if !MACOS13
@available(iOS 14.0, tvOS 14.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor @preconcurrency @propertyWrapper public struct UIApplicationDelegateAdaptor<DelegateType>
where DelegateType: NSObject, DelegateType: UIApplicationDelegate {
    @MainActor @preconcurrency public var wrappedValue: DelegateType { fatalError() }
    @MainActor @preconcurrency public init(_ delegateType: DelegateType.Type = DelegateType.self) {}
}
#endif

// MARK: Links and the app's life cycle

extension View {
    /// Newer than the package's iOS 16: the availability gate's MustFail case `OnChangeInitial` uses it.
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    nonisolated public func onChange<V>(
        of value: V,
        initial: Bool = false,
        _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some View where V: Equatable { _Modified(self) }

    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    nonisolated public func onOpenURL(perform action: @escaping (URL) -> ()) -> some View { _Modified(self) }

    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    nonisolated public func onContinueUserActivity(
        _ activityType: String,
        perform action: @escaping (NSUserActivity) -> ()
    ) -> some View {
        _Modified(self)
    }

    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    nonisolated public func onAppear(perform action: (() -> Void)? = nil) -> some View { _Modified(self) }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func task(
        priority: TaskPriority = .userInitiated,
        @_inheritActorContext _ action: @escaping @Sendable () async -> Void
    ) -> some View {
        _Modified(self)
    }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func task<T>(
        id value: T,
        priority: TaskPriority = .userInitiated,
        @_inheritActorContext _ action: @escaping @Sendable () async -> Void
    ) -> some View where T: Equatable {
        _Modified(self)
    }
}

// MARK: Navigation

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
/// The type of a path-less stack's data (`NavigationStack(root:)`); its members are unused here.
public struct NavigationPath: Equatable {}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
@MainActor @preconcurrency public struct NavigationStack<Data, Root>: View where Root: View {
    @MainActor @preconcurrency public init(@ViewBuilder root: () -> Root) where Data == NavigationPath {}
    @MainActor @preconcurrency public init(path: Binding<Data>, @ViewBuilder root: () -> Root)
    where
        Data: MutableCollection, Data: RandomAccessCollection, Data: RangeReplaceableCollection, Data.Element: Hashable
    {}
    public var body: Never { fatalError() }
}

extension View {
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
    nonisolated public func navigationDestination<D, C>(for data: D.Type, @ViewBuilder destination: @escaping (D) -> C)
        -> some View
    where D: Hashable, C: View {
        _Modified(self)
    }

    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    nonisolated public func navigationTitle(_ titleKey: LocalizedStringKey) -> some View { _Modified(self) }

    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    @_disfavoredOverload
    nonisolated public func navigationTitle<S>(_ title: S) -> some View where S: StringProtocol { _Modified(self) }

    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
    nonisolated public func toolbar<Content>(@ViewBuilder content: () -> Content) -> some View where Content: View {
        _Modified(self)
    }

    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    nonisolated public func sheet<Item, Content>(
        item: Binding<Item?>,
        onDismiss: (() -> Void)? = nil,
        @ViewBuilder content: @escaping (Item) -> Content
    ) -> some View where Item: Identifiable, Content: View {
        _Modified(self)
    }

    /// Deprecated in iOS 18.4 as an API to be deprecated: no warning below it.
    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 7.0, visionOS 1.0, *)
    nonisolated public func tabItem<V>(@ViewBuilder _ label: () -> V) -> some View where V: View { _Modified(self) }

    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    nonisolated public func tag<V>(_ tag: V, includeOptional: Bool = true) -> some View where V: Hashable {
        _Modified(self)
    }
}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
public struct NavigationLink<Label, Destination>: View where Label: View, Destination: View {
    public var body: Never { fatalError() }
}

extension NavigationLink where Destination == Never {
    nonisolated public init<P>(_ titleKey: LocalizedStringKey, value: P?) where Label == Text, P: Hashable {}
    @_disfavoredOverload
    nonisolated public init<S, P>(_ title: S, value: P?) where Label == Text, S: StringProtocol, P: Hashable {}
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 7.0, visionOS 1.0, *)
public struct TabView<SelectionValue, Content>: View where SelectionValue: Hashable, Content: View {
    public init(selection: Binding<SelectionValue>?, @ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

// MARK: Text and controls

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation, Sendable {
    public init(_ value: String) {}
    public init(stringLiteral value: String) {}
    public init(stringInterpolation: StringInterpolation) {}

    public struct StringInterpolation: StringInterpolationProtocol {
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) {}
        public mutating func appendInterpolation(_ string: String) {}
        public mutating func appendInterpolation<T>(_ value: T) where T: _FormatSpecifiable {}
    }
}

public protocol _FormatSpecifiable: Equatable {}
extension Int: _FormatSpecifiable {}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public struct Text: Equatable, Sendable, View {
    nonisolated public init(
        _ key: LocalizedStringKey,
        tableName: String? = nil,
        bundle: Bundle? = nil,
        comment: StaticString? = nil
    ) {}
    @_disfavoredOverload
    nonisolated public init<S>(_ content: S) where S: StringProtocol {}
    public var body: Never { fatalError() }
    nonisolated public static func == (a: Text, b: Text) -> Bool { true }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public struct Image: Equatable, Sendable, View {
    public var body: Never { fatalError() }
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public struct Label<Title, Icon>: View where Title: View, Icon: View {
    nonisolated public init(_ titleKey: LocalizedStringKey, systemImage name: String)
    where Title == Text, Icon == Image {}
    public var body: Never { fatalError() }
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct ButtonRole: Equatable, Sendable {
    public static let destructive = ButtonRole()
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@MainActor @preconcurrency public struct Button<Label>: View where Label: View {
    @preconcurrency nonisolated public init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void)
    where Label == Text {}
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    @preconcurrency nonisolated public init(
        _ titleKey: LocalizedStringKey,
        role: ButtonRole?,
        action: @escaping @MainActor () -> Void
    ) where Label == Text {}
    public var body: Never { fatalError() }
}

/// CoreTransferable, re-exported by SwiftUI.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
public protocol Transferable {}
extension String: Transferable {}
extension URL: Transferable {}

@available(iOS 16.0, macOS 13.0, visionOS 1.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
#if TVOS16
@available(*, unavailable, message: "not on tvOS")
#endif
@MainActor @preconcurrency public struct PasteButton: View {
    @MainActor @preconcurrency public init<T>(payloadType: T.Type, onPaste: @escaping ([T]) -> Void)
    where T: Transferable {}
    public var body: Never { fatalError() }
}

@available(iOS 16.0, macOS 13.0, watchOS 9.0, visionOS 1.0, *)
@available(tvOS, unavailable)
#if TVOS16
@available(*, unavailable, message: "not on tvOS")
#endif
public struct DefaultShareLinkLabel: View {
    public var body: Never { fatalError() }
}

@available(iOS 16.0, macOS 13.0, watchOS 9.0, visionOS 1.0, *)
@available(tvOS, unavailable)
#if TVOS16
@available(*, unavailable, message: "not on tvOS")
#endif
public struct ShareLink<Data, PreviewImage, PreviewIcon, Label>: View where Data: RandomAccessCollection, Label: View {
    public var body: Never { fatalError() }
}

@available(iOS 16.0, macOS 13.0, watchOS 9.0, visionOS 1.0, *)
@available(tvOS, unavailable)
#if TVOS16
@available(*, unavailable, message: "not on tvOS")
#endif
extension ShareLink
where Data == CollectionOfOne<URL>, PreviewImage == Never, PreviewIcon == Never, Label == DefaultShareLinkLabel {
    nonisolated public init(item: URL, subject: Text? = nil, message: Text? = nil) {}
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct TextField<Label>: View where Label: View {
    nonisolated public init(_ titleKey: LocalizedStringKey, text: Binding<String>) where Label == Text {}
    public var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct SecureField<Label>: View where Label: View {
    nonisolated public init(_ titleKey: LocalizedStringKey, text: Binding<String>) where Label == Text {}
    public var body: Never { fatalError() }
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, visionOS 1.0, *)
public struct ProgressView<Label, CurrentValueLabel>: View where Label: View, CurrentValueLabel: View {
    nonisolated public init(_ titleKey: LocalizedStringKey) where Label == Text, CurrentValueLabel == EmptyView {}
    public var body: Never { fatalError() }
}

// MARK: Containers

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@MainActor @preconcurrency public struct List<SelectionValue, Content>: View
where SelectionValue: Hashable, Content: View {
    @MainActor @preconcurrency public init(@ViewBuilder content: () -> Content) where SelectionValue == Never {}
    @MainActor @preconcurrency public init<Data, ID, RowContent>(
        _ data: Data,
        id: KeyPath<Data.Element, ID>,
        @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent
    )
    where
        Content == ForEach<Data, ID, RowContent>, Data: RandomAccessCollection, ID: Hashable, RowContent: View,
        SelectionValue == Never
    {}
    public var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct ForEach<Data, ID, Content>: View where Data: RandomAccessCollection, ID: Hashable, Content: View {
    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content)
    {}
    public var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct Form<Content>: View where Content: View {
    public init(@ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public struct Section<Parent, Content, Footer>: View where Parent: View, Content: View, Footer: View {
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    public init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content)
    where Parent == Text, Footer == EmptyView {}
    public var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public struct VerticalAlignment: Equatable {
    public static let center = VerticalAlignment()
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public struct HorizontalAlignment: Equatable {
    public static let center = HorizontalAlignment()
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public enum VerticalEdge: Int8, Hashable, CaseIterable, Sendable {
    case top, bottom
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public enum Edge: Int8, Hashable, CaseIterable, Sendable {
    case top, leading, bottom, trailing

    @frozen public struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let all = Set(rawValue: 15)
    }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public struct HStack<Content>: View where Content: View {
    nonisolated public init(
        alignment: VerticalAlignment = .center,
        spacing: CGFloat? = nil,
        @ViewBuilder content: () -> Content
    ) {}
    public var body: Never { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public struct VStack<Content>: View where Content: View {
    nonisolated public init(
        alignment: HorizontalAlignment = .center,
        spacing: CGFloat? = nil,
        @ViewBuilder content: () -> Content
    ) {}
    public var body: Never { fatalError() }
}

// MARK: Styles and modifiers

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public protocol ShapeStyle: Sendable {}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public struct Color: Hashable, ShapeStyle, View {
    public static let red = Color()
    public var body: Never { fatalError() }
}

extension ShapeStyle where Self == Color {
    public static var red: Color { .red }
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct Material: ShapeStyle {
    public static var thinMaterial: Material { Material() }
}

extension ShapeStyle where Self == Material {
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 10.0, visionOS 1.0, *)
    public static var thinMaterial: Material { Material() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
@frozen public struct Font: Hashable, Sendable {
    public static let title = Font()
}

#if !MACOS13
extension View {
    @available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
    @available(macOS, unavailable)
    @available(watchOS, unavailable)
    nonisolated public func textContentType(_ textContentType: UITextContentType?) -> some View { _Modified(self) }

    @available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
    @available(macOS, unavailable)
    @available(watchOS, unavailable)
    nonisolated public func keyboardType(_ type: UIKeyboardType) -> some View { _Modified(self) }
}
#endif

extension View {

    nonisolated public func hidden() -> some View { _Modified(self) }
    nonisolated public func disabled(_ disabled: Bool) -> some View { _Modified(self) }
    nonisolated public func font(_ font: Font?) -> some View { _Modified(self) }
    nonisolated public func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View { _Modified(self) }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func foregroundStyle<S>(_ style: S) -> some View where S: ShapeStyle { _Modified(self) }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func background<S>(_ style: S, ignoresSafeAreaEdges edges: Edge.Set = .all) -> some View
    where S: ShapeStyle {
        _Modified(self)
    }

    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    nonisolated public func safeAreaInset<V>(
        edge: VerticalEdge,
        alignment: HorizontalAlignment = .center,
        spacing: CGFloat? = nil,
        @ViewBuilder content: () -> V
    ) -> some View where V: View {
        _Modified(self)
    }
}
